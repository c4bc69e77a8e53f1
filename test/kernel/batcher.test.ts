import { describe, expect, test } from "bun:test";
import { Batcher, ItemFailure } from "../../src/kernel/batcher.ts";

function recordingBatcher(options: { delayMs?: number } = {}) {
  const batches: number[][] = [];
  const batcher = new Batcher<number, number>(async (items) => {
    batches.push(items);
    if (options.delayMs) await Bun.sleep(options.delayMs);
    return items.map((item) => item * 10);
  });
  return { batcher, batches };
}

describe("Batcher", () => {
  test("each caller gets its own result; concurrent callers share a flush", async () => {
    const { batcher, batches } = recordingBatcher();
    const results = await Promise.all([1, 2, 3].map((n) => batcher.submit(n)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  test("a caller that submits right after its previous result is never left behind", async () => {
    const { batcher } = recordingBatcher();
    for (let i = 0; i < 50; i++) expect(await batcher.submit(i)).toBe(i * 10);
  });

  test("items arriving during a flush go into the next one", async () => {
    const { batcher, batches } = recordingBatcher({ delayMs: 20 });
    const first = batcher.submit(1);
    await Bun.sleep(5);
    const later = [batcher.submit(2), batcher.submit(3)];
    await Promise.all([first, ...later]);
    expect(batches).toEqual([[1], [2, 3]]);
  });

  test("work already waiting on the event loop joins the batch", async () => {
    const { batcher, batches } = recordingBatcher();
    // Queued before the first submit, as a request already read would be: it runs before the flush.
    const second = new Promise<number>((resolve) => setImmediate(() => resolve(batcher.submit(2))));
    const first = batcher.submit(1);
    expect(await Promise.all([first, second])).toEqual([10, 20]);
    expect(batches).toEqual([[1, 2]]);
  });

  test("a flush that blocks the event loop is followed by one carrying everything that came due meanwhile", async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      batches.push(items);
      // Synchronous work, as PGlite does it: timers come due but cannot run until it ends.
      if (items[0] === 1) Bun.sleepSync(20);
      return items;
    });
    const timers = [2, 3, 4].map(
      (n) => new Promise<number>((resolve) => setTimeout(() => resolve(batcher.submit(n)), 5)),
    );
    expect(await Promise.all([batcher.submit(1), ...timers])).toEqual([1, 2, 3, 4]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  test("a failed flush rejects its items only; the next batch runs", async () => {
    let fail = true;
    const batcher = new Batcher<number, number>(async (items) => {
      if (fail) {
        fail = false;
        throw new Error("database down");
      }
      return items;
    });
    await expect(batcher.submit(1)).rejects.toThrow("database down");
    expect(await batcher.submit(2)).toBe(2);
  });

  test("an ItemFailure rejects that item alone; the others of its batch get their results", async () => {
    const batcher = new Batcher<number, number>(async (items) =>
      items.map((item) => (item % 2 === 0 ? new ItemFailure(new Error(`no ${item}`)) : item)),
    );
    const results = await Promise.allSettled([1, 2, 3].map((item) => batcher.submit(item)));
    expect(
      results.map((result) => (result.status === "fulfilled" ? result.value : String(result.reason))),
    ).toEqual([1, "Error: no 2", 3]);
  });

  test("idle resolves once everything submitted has been flushed", async () => {
    const { batcher } = recordingBatcher({ delayMs: 10 });
    let done = 0;
    for (let i = 0; i < 5; i++) void batcher.submit(i).then(() => done++);
    await batcher.idle();
    expect(done).toBe(5);
    await batcher.idle();
  });

  test("one flush at a time by default, however many items arrive while it runs", async () => {
    let running = 0;
    let most = 0;
    const batcher = new Batcher<number, number>(async (items) => {
      most = Math.max(most, ++running);
      await Bun.sleep(2);
      running--;
      return items;
    });
    const all: Promise<number>[] = [];
    for (let i = 0; i < 20; i++) {
      all.push(batcher.submit(i));
      await Bun.sleep(1);
    }
    expect(await Promise.all(all)).toEqual([...Array(20).keys()]);
    expect(most).toBe(1);
  });

  test("with inFlight, a flush starts on the next turn while others run, up to the limit", async () => {
    const started: number[][] = [];
    let running = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        started.push(items);
        most = Math.max(most, ++running);
        await new Promise<void>((resolve) => release.push(resolve));
        running--;
        return items.map((item) => item * 10);
      },
      { inFlight: 2 },
    );
    const first = batcher.submit(1);
    await Bun.sleep(1);
    const second = batcher.submit(2);
    await Bun.sleep(1);
    const third = [batcher.submit(3), batcher.submit(4)];
    await Bun.sleep(1);
    // Two flushes run; the third waits for a slot.
    expect(started).toEqual([[1], [2]]);
    release.shift()?.();
    expect(await first).toBe(10);
    await Bun.sleep(1);
    expect(started).toEqual([[1], [2], [3, 4]]);
    for (const done of release.splice(0)) done();
    expect(await second).toBe(20);
    await Bun.sleep(1);
    for (const done of release.splice(0)) done();
    expect(await Promise.all(third)).toEqual([30, 40]);
    expect(most).toBe(2);
    await batcher.idle();
  });

  test("maxBatch splits a burst into flushes of at most that many items", async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>(
      async (items) => {
        batches.push(items);
        return items;
      },
      { maxBatch: 3 },
    );
    expect(await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => batcher.submit(n)))).toEqual([
      1, 2, 3, 4, 5, 6, 7,
    ]);
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });
});
