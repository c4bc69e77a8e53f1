import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { allItems, createBatch, sendTo, waitForBatch } from "../support/batches.ts";
import { usingPostgres } from "../support/database.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { danishNumbers } from "../support/vat-numbers.ts";
import { callsPerNumber } from "../support/vies-calls.ts";

/**
 * Repeats within a batch worked on by two instances on one Postgres, each with its own cache
 * (its own key prefix) and its own VIES: the repeats of a number go to neither VIES while its
 * first item is in flight on either instance. The embedded database has one worker only (its
 * directory is locked to one process), so this runs where the Postgres suite does.
 */
describe.if(usingPostgres)("repeats within a batch, on two instances", () => {
  const instances: Harness[] = [];

  beforeAll(async () => {
    // Few slots each, so both instances hold items of the batch at once.
    const env = { BATCH_POLL_MS: "20", BATCH_CONCURRENCY: "2" };
    instances.push(
      await startHarness({ background: true, env }),
      await startHarness({ background: true, env }),
    );
  });
  afterAll(() => Promise.all(instances.map((instance) => instance.close())));

  test("one VIES call per number across both, one unit per number", async () => {
    const [one] = instances as [Harness];
    const key = await one.createKey("pro", { rate: 1_000_000 });
    const send = sendTo(one, key.secret);
    const numbers = danishNumbers(4, 35_000_000);
    for (const instance of instances) {
      instance.vies.setLatency({ DK: 300 });
      for (const number of numbers)
        instance.vies.addNumber("DK", number.slice(2), { valid: true, name: `Firma ${number} ApS` });
    }
    const from = instances.map((instance) => instance.vies.calls.log.length);
    // Every number five times in a row, spelt two ways: the instances' first claims hold
    // items of one number together.
    const vats = numbers.flatMap((number) =>
      [0, 1, 2, 3, 4].map((n) => (n % 2 ? number.toLowerCase() : number)),
    );
    const created = await createBatch(send, { items: vats.map((vat) => ({ vat })) });
    const batch = await waitForBatch(send, created.id, { timeoutMs: 60_000 });

    const calls = new Map<string, number>();
    instances.forEach((instance, index) => {
      for (const [number, count] of callsPerNumber(instance.vies, from[index] ?? 0, numbers))
        calls.set(number, (calls.get(number) ?? 0) + count);
    });
    expect(calls).toEqual(new Map(numbers.map((number) => [number, 1])));
    // Both instances asked VIES: each held first items at the same time.
    expect(
      instances.map((instance, index) => instance.vies.calls.log.length - (from[index] ?? 0)),
    ).not.toContain(0);
    expect(batch.counts).toMatchObject({ total: 20, done: 20, failed: 0, billed: 4 });
    const items = await allItems(send, batch.id);
    expect(items.map((item) => item.billable)).toEqual(vats.map((_, index) => index % 5 === 0));
  });
});
