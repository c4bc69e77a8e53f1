import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBatch, sendTo, waitForBatch } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { prng } from "../support/prng.ts";
import { type BenchPrefix, createVatNumberSource } from "../support/synthetic-vat-numbers.ts";
import { median } from "../support/traffic.ts";

/**
 * A customer list sorted by country (as exports often are) used to be worked on one member state
 * at a time: a claim read a batch's first due items only, as many as the worker's free slots,
 * and of a state at its cap (8 per instance) took none, so the next state's items were not
 * reached until the first state's fell below that window, and the batch took about the sum of
 * its states' times instead of the longest one's. Here the worker has 32 slots, so a window of
 * about 24 items against 40 of each state: 128 slots against thousands of a state, scaled down.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ background: true, env: { BATCH_POLL_MS: "50", BATCH_CONCURRENCY: "32" } });
});
afterAll(() => harness.close());

const STATES: BenchPrefix[] = ["DE", "NL", "BE", "DK", "FI"];
const PER_STATE = 40;
const VIES_LATENCY_MS = 200;
const ROUNDS = 2;
const numbers = createVatNumberSource();
const random = prng(2611);

/** New numbers (no cache hits), `PER_STATE` of each state, state after state. */
const sortedItems = () => STATES.flatMap((state) => numbers.take(PER_STATE, [state])).map((vat) => ({ vat }));

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/** A batch of `items`, from creation to completion, in ms. */
async function run(items: { vat: string }[]): Promise<number> {
  const send = sendTo(harness, (await harness.createKey("pro", { rate: 1_000_000 })).secret);
  const started = performance.now();
  const batch = await createBatch(send, { items });
  const done = await waitForBatch(send, batch.id, { timeoutMs: 60_000 });
  expect(done.counts).toMatchObject({ total: items.length, done: items.length });
  return performance.now() - started;
}

describe("a batch sorted by member state", () => {
  test("takes about as long as the same items shuffled", async () => {
    harness.vies.setLatency(VIES_LATENCY_MS);
    // Warm-up: the first runs of a process are slower (compilation, the tables' first pages).
    await run(shuffled(sortedItems()));
    // Each state's 40 calls, 4 at a time, take 2 s in either order: the least a batch can take
    // is its longest state's, and state after state takes the sum (×5 here). The machine is
    // shared and its load comes and goes over seconds, so each round runs sorted, shuffled,
    // shuffled, sorted, each sorted run paired with the shuffled one beside it; the median of
    // the pairs' ratios is compared, against a bound far below what one state at a time costs.
    const ratios: number[] = [];
    const sorted: number[] = [];
    const mixed: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const first = await run(sortedItems());
      const second = await run(shuffled(sortedItems()));
      const third = await run(shuffled(sortedItems()));
      const fourth = await run(sortedItems());
      ratios.push(first / second, fourth / third);
      sorted.push(first, fourth);
      mixed.push(second, third);
    }
    harness.vies.setLatency(0);
    const ms = (runs: number[]) => runs.map(Math.round).join("/");
    const ratio = median(ratios);
    console.log(
      `${STATES.length} states × ${PER_STATE} numbers, VIES ${VIES_LATENCY_MS} ms per call: ` +
        `sorted by state ${ms(sorted)} ms, shuffled ${ms(mixed)} ms; ` +
        `paired ratios ${ratios.map((r) => `×${r.toFixed(2)}`).join(" ")}, median ×${ratio.toFixed(2)}`,
    );
    expect(ratio).toBeLessThan(1.5);
  }, 120_000);
});
