import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { retryDelayMs } from "../../src/batches/processor.ts";
import { allItems, createBatch, readBatch, sendTo, waitForBatch } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { prng } from "../support/prng.ts";
import { wellFormedVatNumbers } from "../support/vat-numbers.ts";

/**
 * A member state down while a batch runs: its items wait and are tried again with backoff
 * (never answered from a stale copy, never failed, never billed for a failure) until it is back
 * or until the retry window (3 s here) closes — then they fail with the upstream's code, or are
 * answered from the last-known-good copy where there is one.
 */
const WINDOW_SECONDS = 3;
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    background: true,
    env: {
      BATCH_POLL_MS: "20",
      BATCH_RETRY_WINDOW_SECONDS: String(WINDOW_SECONDS),
      VAT_CACHE_TTL_SECONDS: "60",
    },
  });
});
afterAll(() => harness.close());

const numbersOf = (prefix: string, count: number, seed: number) => {
  const next = wellFormedVatNumbers(prng(seed));
  const found: string[] = [];
  while (found.length < count) {
    const number = next();
    if (number.startsWith(prefix)) found.push(number);
  }
  return found;
};

async function keyed() {
  const key = await harness.createKey("pro", { rate: 1_000_000 });
  return { ...key, send: sendTo(harness, key.secret) };
}

describe("retry delays", () => {
  test("double from a twentieth of the window (at most 5 s) to a quarter of it (at most 5 minutes), with jitter", () => {
    const none = () => 0;
    const full = () => 0.999_999;
    expect([1, 2, 3, 4, 10].map((attempt) => Math.round(retryDelayMs(attempt, 3600, full)))).toEqual([
      5_000, 10_000, 20_000, 40_000, 300_000,
    ]);
    expect(retryDelayMs(1, 3600, none)).toBe(2_500);
    expect(retryDelayMs(1, 3, full)).toBeCloseTo(150, 0);
    expect(retryDelayMs(9, 3, full)).toBeCloseTo(750, 0);
  });
});

describe("a member state down mid-batch", () => {
  test("its items wait, the others go on, and they all finish once it is back", async () => {
    const { send } = await keyed();
    const german = numbersOf("DE", 10, 1);
    const danish = numbersOf("DK", 10, 2);
    harness.vies.setBehaviour("DE", { kind: "fault", fault: "MS_UNAVAILABLE" });
    const batch = await createBatch(send, { items: [...german, ...danish].map((vat) => ({ vat })) });
    const waiting = await waitForBatch(send, batch.id, { done: (b) => b.counts.done >= 10 });
    expect(waiting.status).toBe("running");
    expect(waiting.counts).toMatchObject({ done: 10, failed: 0, billed: 10 });
    const pending = (await allItems(send, batch.id)).filter((item) => item.status === "pending");
    expect(pending.map((item) => item.index)).toEqual([...Array(10).keys()]);
    expect(pending.filter((item) => item.vat || item.billable || item.error)).toEqual([]);
    await Bun.sleep(500);
    harness.vies.clearBehaviour("DE");
    const done = await waitForBatch(send, batch.id, { timeoutMs: 10_000 });
    expect(done.counts).toMatchObject({ total: 20, done: 20, failed: 0, billed: 20 });
    expect((await allItems(send, batch.id)).every((item) => item.vat?.stale === false)).toBe(true);
  });

  test("down longer than the retry window: its items fail with the upstream code, unbilled; a cached one is its stale copy", async () => {
    const { send, secret } = await keyed();
    const [known, ...unknown] = numbersOf("FI", 6, 3);
    // A copy ("not registered") from an hour ago: past its freshness with the service's clock moved on.
    expect((await harness.validate(secret, { vat: known })).status).toBe(200);
    harness.clock.advance(3_600_000);
    harness.vies.setBehaviour("FI", { kind: "fault", fault: "MS_UNAVAILABLE" });
    const started = Date.now();
    const batch = await createBatch(send, { items: [known, ...unknown].map((vat) => ({ vat })) });
    const mid = await waitForBatch(send, batch.id, { done: () => Date.now() - started > 1500 });
    expect(mid.counts).toMatchObject({ done: 0, failed: 0 });
    const done = await waitForBatch(send, batch.id, { timeoutMs: WINDOW_SECONDS * 1000 + 5_000 });
    harness.vies.clearBehaviour("FI");
    expect(Date.now() - started).toBeGreaterThanOrEqual(WINDOW_SECONDS * 1000);
    const items = await allItems(send, batch.id);
    expect(done.counts).toMatchObject({ total: 6, done: 1, failed: 5, billed: 0 });
    expect(items[0]).toMatchObject({
      status: "done",
      billable: false,
      vat: { valid: false, stale: true, cached: true, warning: { code: "member_state_unavailable" } },
    });
    expect(items.slice(1).map((item) => [item.status, item.error?.code, item.billable])).toEqual(
      Array(5).fill(["failed", "member_state_unavailable", false]),
    );
    expect(((await (await send("GET", "/usage")).json()) as { used: number }).used).toBe(1);
    expect((await readBatch(send, batch.id)).status).toBe("completed");
  });
});
