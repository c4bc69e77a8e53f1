import { afterEach, describe, expect, test } from "bun:test";
import { createPoller, type Poller, WAKE_DELAY_MS } from "../../src/background/poller.ts";

/** A poller whose ticks are recorded (times since its start), each running `tick` when given. */
function recorded(intervalMs: number, tick: (count: number) => Promise<boolean> = async () => false) {
  const started = performance.now();
  const ticks: number[] = [];
  const errors: unknown[] = [];
  const poller = createPoller({
    intervalMs,
    tick: () => {
      ticks.push(performance.now() - started);
      return tick(ticks.length);
    },
    onError: (error) => errors.push(error),
  });
  running.push(poller);
  poller.start();
  return { poller, ticks, errors };
}

const running: Poller[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((poller) => poller.stop()));
});

/** Resolves once `ticks` has `count` entries; fails the test after `withinMs`. */
async function ticksReach(ticks: number[], count: number, withinMs: number): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (ticks.length < count) {
    if (performance.now() > deadline)
      throw new Error(`${ticks.length} ticks, not ${count}, in ${withinMs} ms`);
    await Bun.sleep(1);
  }
}

/** The times between consecutive ticks. */
const gaps = (ticks: number[]) => ticks.slice(1).map((at, index) => at - (ticks[index] ?? 0));

describe("poller", () => {
  test("ticks at once, then after the interval while there is nothing to do", async () => {
    const { ticks } = recorded(40);
    await ticksReach(ticks, 3, 2_000);
    expect(Math.min(...gaps(ticks))).toBeGreaterThanOrEqual(35);
  });

  test("ticks again at once while a tick reports more work", async () => {
    const { ticks } = recorded(60_000, async (count) => count < 5);
    await ticksReach(ticks, 5, 2_000);
    await Bun.sleep(50);
    expect(ticks).toHaveLength(5);
  });

  test("a wake cuts the wait short: the next tick comes after the wake delay, not the interval", async () => {
    const { poller, ticks } = recorded(60_000);
    await ticksReach(ticks, 1, 2_000);
    await Bun.sleep(20);
    const woken = performance.now();
    poller.wake();
    await ticksReach(ticks, 2, 2_000);
    expect(performance.now() - woken).toBeGreaterThanOrEqual(WAKE_DELAY_MS - 1);
  });

  test("the wakes of work finishing item by item within the delay make one tick", async () => {
    const { poller, ticks } = recorded(60_000);
    await ticksReach(ticks, 1, 2_000);
    await Bun.sleep(20);
    // A wake at every turn of the event loop, for half the delay: a tick each, without it.
    const first = performance.now();
    let wakes = 0;
    do {
      poller.wake();
      wakes++;
      await new Promise((resolve) => setImmediate(resolve));
    } while (performance.now() - first < WAKE_DELAY_MS / 2);
    await ticksReach(ticks, 2, 2_000);
    await Bun.sleep(100);
    expect(wakes).toBeGreaterThan(1);
    expect(ticks).toHaveLength(2);
  });

  test("a wake while a tick runs is not lost: the work it announced may have come after the tick looked", async () => {
    let poller: Poller | null = null;
    const { ticks } = recorded(60_000, async (count) => {
      if (count === 1) {
        await Bun.sleep(30);
        poller?.wake();
        await Bun.sleep(30);
      }
      return false;
    });
    poller = running.at(-1) ?? null;
    await ticksReach(ticks, 2, 2_000);
  });

  test("a failing tick is reported and tried again after the interval, woken or not", async () => {
    let poller: Poller | null = null;
    const { ticks, errors } = recorded(300, async (count) => {
      if (count === 1) {
        poller?.wake();
        throw new Error("the database is away");
      }
      return false;
    });
    poller = running.at(-1) ?? null;
    await ticksReach(ticks, 2, 3_000);
    expect(errors).toHaveLength(1);
    expect(gaps(ticks)[0]).toBeGreaterThanOrEqual(290);
  });

  test("stop ends the wait at once and waits for the tick under way", async () => {
    let finished = false;
    const { poller, ticks } = recorded(60_000, async (count) => {
      if (count === 2) {
        await Bun.sleep(50);
        finished = true;
      }
      return false;
    });
    await ticksReach(ticks, 1, 2_000);
    const stopping = performance.now();
    await poller.stop();
    expect(performance.now() - stopping).toBeLessThan(1_000);
    poller.start();
    await ticksReach(ticks, 2, 2_000);
    await poller.stop();
    expect(finished).toBe(true);
  });
});
