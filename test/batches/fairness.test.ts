import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { ViesBehaviour } from "../fakes/vies.ts";
import examples from "../fixtures/iban-examples.json" with { type: "json" };
import { createBatch, sendTo, waitForBatch } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { createVatNumberSource, PREFIXES_BUT_DE } from "../support/synthetic-vat-numbers.ts";

/**
 * Issue 21, the class: a shared worker gives each key a fair share and cannot be held by one
 * key's slow or failing work. One key's 2,000-item batch, all of a member state that hangs until
 * the client gives up, used to hold three quarters of the batch worker's slots waiting for that
 * state's 4 VIES slots; another key's small batch over nineteen other states and IBANs then ran
 * in the quarter left, at about a third of its pace. Now at most twice a state's VIES slots of
 * its items are in flight per instance, the rest wait unclaimed, and the other key's batch
 * takes about the time it takes alone.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ background: true, env: { BATCH_POLL_MS: "50" } });
});
afterAll(() => harness.close());

const HEALTHY = PREFIXES_BUT_DE;
const IBANS = Object.values(examples as Record<string, string>);
const numbers = createVatNumberSource();
const VIES_LATENCY_MS = 600;

/** Another key's batch, new numbers each time (no cache hits): 8 of each healthy state and 100 IBANs, mixed. */
async function smallBatch(): Promise<number> {
  const send = sendTo(harness, (await harness.createKey("pro", { rate: 1_000_000 })).secret);
  const vats = numbers.take(8 * HEALTHY.length, HEALTHY).map((vat) => ({ vat }));
  const ibans = IBANS.slice(0, 100).map((iban) => ({ iban }));
  const items = vats.flatMap((vat, index) =>
    index % 3 === 0 && ibans.length > 0 ? [vat, ibans.pop()] : [vat],
  );
  const started = performance.now();
  const batch = await createBatch(send, { items: [...items, ...ibans] });
  const done = await waitForBatch(send, batch.id, { timeoutMs: 60_000 });
  expect(done.counts).toMatchObject({ done: items.length + ibans.length });
  return performance.now() - started;
}

/** The shortest of `runs` runs: the machine is shared, and a run can lose time to anything. */
async function best(runs: number): Promise<number> {
  let shortest = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) shortest = Math.min(shortest, await smallBatch());
  return shortest;
}

describe("one key's batch on a member state that is down", () => {
  test.each([
    ["hangs until the client gives up", { kind: "hang" }],
    ["fails after the usual latency", { kind: "fault", fault: "MS_UNAVAILABLE" }],
  ] satisfies [string, ViesBehaviour][])(
    "(it %s) does not slow another key's batch of other states and IBANs",
    async (_, down) => {
      harness.vies.setLatency(VIES_LATENCY_MS);
      harness.vies.setBehaviour("DE", down);
      // Warm-up: the first runs of a process are slower (compilation, the tables' first pages).
      await smallBatch();
      const alone = await best(2);

      const heavy = sendTo(harness, (await harness.createKey("pro", { rate: 1_000_000 })).secret);
      const german = numbers.take(2000, ["DE"]).map((vat) => ({ vat }));
      const stuck = await createBatch(heavy, { items: german });
      // Its items are under way before the other key's batch is measured.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [row] = await harness.services.database.rows<{ n: number }>(sql`
        SELECT count(*)::int AS n FROM batch_items WHERE batch_id = ${stuck.id} AND lease_token IS NOT NULL`);
        if ((row?.n ?? 0) > 0) break;
        if (Date.now() > deadline) throw new Error("the German batch was not taken up");
        await Bun.sleep(20);
      }
      const beside = await best(2);
      const [held] = await harness.services.database.rows<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM batch_items WHERE batch_id = ${stuck.id} AND lease_token IS NOT NULL`);

      // The next case starts without it.
      expect((await heavy("DELETE", `/batches/${stuck.id}`)).status).toBe(200);
      harness.vies.clearBehaviour("DE");
      harness.vies.setLatency(0);
      const ratio = beside / alone;
      console.log(
        `small batch (${8 * HEALTHY.length} VAT items over ${HEALTHY.length} states, 100 IBANs) alone ${Math.round(alone)} ms, ` +
          `beside another key's 2,000 items on DE (${down.kind}) ${Math.round(beside)} ms (×${ratio.toFixed(2)}); ` +
          `DE items in flight at the end: ${held?.n}`,
      );
      expect(ratio).toBeLessThan(1.5);
    },
    180_000,
  );
});
