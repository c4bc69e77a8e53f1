import { describe, expect, test } from "bun:test";
import { createPacer } from "../../src/vat/pacer.ts";

describe("createPacer", () => {
  test("at most `perWindow` starts in any window, given out in order", async () => {
    let now = 0;
    const pacer = createPacer({ perWindow: 2, windowMs: 1000, now: () => now });
    expect(await pacer.acquire(0)).toBe(true);
    expect(await pacer.acquire(0)).toBe(true);
    // The third's turn is at 1000: too far for a caller that may wait 999, not for one that may wait 1000.
    expect(await pacer.acquire(999)).toBe(false);
    now = 500;
    expect(await pacer.acquire(499)).toBe(false);
    const waited = pacer.acquire(500);
    now = 1000;
    expect(await waited).toBe(true);
    // The first two have left the window: the fourth goes at once, beside the third; a fifth
    // waits for the third's window to end.
    expect(await pacer.acquire(0)).toBe(true);
    expect(await pacer.acquire(999)).toBe(false);
    expect(await pacer.acquire(1000)).toBe(true);
  });

  test("a refused caller takes no place in the line", async () => {
    let now = 0;
    const pacer = createPacer({ perWindow: 1, windowMs: 1000, now: () => now });
    await pacer.acquire(0);
    for (let i = 0; i < 5; i += 1) expect(await pacer.acquire(10)).toBe(false);
    now = 1000;
    expect(await pacer.acquire(0)).toBe(true);
  });

  test("waits for real on the monotonic clock by default", async () => {
    const pacer = createPacer({ perWindow: 1, windowMs: 150 });
    const started = performance.now();
    await pacer.acquire(0);
    expect(await pacer.acquire(1000)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  test("refuses a rate that is not a positive integer", () => {
    expect(() => createPacer({ perWindow: 0 })).toThrow(RangeError);
    expect(() => createPacer({ perWindow: 1.5 })).toThrow(RangeError);
  });
});
