import { describe, expect, test } from "bun:test";
import { Batcher } from "../src/batch.ts";

function recordingBatcher(options: { lingerMs?: number; delayMs?: number } = {}) {
  const batches: number[][] = [];
  const batcher = new Batcher<number, number>(
    async (items) => {
      batches.push(items);
      if (options.delayMs) await Bun.sleep(options.delayMs);
      return items.map((item) => item * 10);
    },
    512,
    options.lingerMs ?? 0,
  );
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

  test("linger lets a batch fill across ticks", async () => {
    const { batcher, batches } = recordingBatcher({ lingerMs: 10 });
    const first = batcher.submit(1);
    await Bun.sleep(2);
    await Promise.all([first, batcher.submit(2)]);
    expect(batches).toEqual([[1, 2]]);
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

  test("idle resolves once everything submitted has been flushed", async () => {
    const { batcher } = recordingBatcher({ delayMs: 10 });
    let done = 0;
    for (let i = 0; i < 5; i++) void batcher.submit(i).then(() => done++);
    await batcher.idle();
    expect(done).toBe(5);
    await batcher.idle();
  });
});
