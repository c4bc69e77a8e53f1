import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { planCatalogue } from "../../src/accounts/plans.ts";
import { createBatch } from "../../src/batches/store.ts";
import type { Database } from "../../src/kernel/db.ts";
import { ApiError } from "../../src/kernel/errors.ts";
import { deleteWorkOf, proKey, secondConnection, testKeyStore } from "../support/database.ts";
import { type Harness, startHarness } from "../support/harness.ts";

/**
 * A key's batch volume is bounded by its plan: batches queued or running at once, and batch
 * items a day (UTC). Refusals are 429 `rate_limited` naming the limit, with `Retry-After`; the
 * counts live in the database and are exact under concurrency, from one instance or several.
 */

const FREE = planCatalogue(600).free.batches as { active: number; itemsPerDay: number };
const IBAN = "DE89370400440532013000";
const items = (count: number) => Array.from({ length: count }, () => ({ iban: IBAN }));

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

/** A free key whose per-minute limit stays out of the way. */
const freeKey = async () => (await harness.createKey("free", { rate: 100_000 })).secret;

const post = (key: string, count: number) =>
  harness.request<{ id: string; error?: { code: string; message: string } }>("POST", "/batches", {
    key,
    body: { items: items(count) },
  });

/** Seconds from now to the next 00:00 UTC. */
const toMidnight = () => {
  const now = new Date();
  return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
};

describe("the free plan's limits over HTTP", () => {
  test(`${FREE.active} batches queued or running at once; another is 429 until one is cancelled`, async () => {
    const key = await freeKey();
    const accepted = [];
    for (let index = 0; index < FREE.active; index++) {
      const response = await post(key, 1);
      expect(response.status).toBe(202);
      accepted.push(response.body.id);
    }
    const refused = await post(key, 1);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: "rate_limited",
      message: `the free plan allows ${FREE.active} batches queued or running at once; one frees when a batch of this key completes or is cancelled (DELETE /batches/{id})`,
    });
    expect(refused.headers.get("retry-after")).toBe("60");
    expect((await harness.request("DELETE", `/batches/${accepted[0]}`, { key })).status).toBe(200);
    expect((await post(key, 1)).status).toBe(202);
  });

  test(`${FREE.itemsPerDay} batch items a day: the rest waits for 00:00 UTC, a refused batch counts nothing`, async () => {
    const key = await freeKey();
    const first = await post(key, FREE.itemsPerDay - 300);
    expect(first.status).toBe(202);
    await harness.request("DELETE", `/batches/${first.body.id}`, { key });
    const before = toMidnight();
    const refused = await post(key, 301);
    const after = toMidnight();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: "rate_limited",
      message: `the free plan allows ${FREE.itemsPerDay} batch items a day (UTC); ${FREE.itemsPerDay - 300} are used today and this batch has 301: 300 more can be sent today, all of them again from 00:00 UTC`,
    });
    const retryAfter = Number(refused.headers.get("retry-after"));
    // Whole seconds, rounded up, on the database's clock: between the two readings of ours.
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(after));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(before) + 1);
    // Cancelled batches still count (their items were stored); the refused one did not.
    expect((await post(key, 300)).status).toBe(202);
    expect((await post(key, 1)).status).toBe(429);
  });

  test("a batch bigger than the plan's whole day is 400: waiting would not help", async () => {
    const key = await freeKey();
    const response = await post(key, FREE.itemsPerDay + 1);
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      code: "invalid_request",
      message: `a batch of the free plan holds at most ${FREE.itemsPerDay} items, the plan's batch items a day; got ${FREE.itemsPerDay + 1}`,
    });
  });
});

describe("exact under concurrency, across connection pools", () => {
  let database: Database;
  let other: Database | null;
  let keyId: string;

  beforeAll(async () => {
    const store = await testKeyStore();
    database = store.database;
    // On Postgres, a second pool: what another instance would have. PGlite has one connection.
    other = secondConnection();
    keyId = await proKey(store.keys, "volume");
  });
  afterAll(async () => {
    await other?.close();
    await deleteWorkOf(database, [keyId]);
  });

  /** `count` creations of `size` items at once, alternating pools: how many were accepted, and the refusals. */
  async function race(limits: { active: number; itemsPerDay: number }, count: number, size: number) {
    const outcomes = await Promise.allSettled(
      Array.from({ length: count }, (_, index) =>
        createBatch(index % 2 === 1 && other ? other : database, {
          keyId,
          items: items(size),
          webhookUrl: null,
          plan: { id: "pro", limits },
        }),
      ),
    );
    const refusals = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
    for (const refusal of refusals) expect(refusal).toBeInstanceOf(ApiError);
    return { accepted: count - refusals.length, refusals: refusals as ApiError[] };
  }

  test("30 at once against 4 active batches: exactly 4 accepted", async () => {
    const { accepted, refusals } = await race({ active: 4, itemsPerDay: 1_000_000 }, 30, 1);
    expect(accepted).toBe(4);
    expect(refusals.every((refusal) => refusal.message.includes("4 batches queued or running at once"))).toBe(
      true,
    );
  });

  test("30 at once of 7 items against what is left of a day: exactly as many as fit", async () => {
    // The key has 4 items today from the test before; 4 + 10 × 7 = 74 fit in 75.
    const { accepted, refusals } = await race({ active: 1000, itemsPerDay: 75 }, 30, 7);
    expect(accepted).toBe(10);
    expect(refusals.every((refusal) => refusal.message.includes("75 batch items a day"))).toBe(true);
  });
});
