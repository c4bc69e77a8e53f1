import { describe, expect, test } from "bun:test";
import { createKeyedLimiter, type Release } from "../../src/vat/limiter.ts";
import { SLACK_MS, timed } from "../store/timing.ts";

function taken(release: Release | null): Release {
  if (release === null) throw new Error("expected a slot");
  return release;
}

describe("keyed limiter", () => {
  test("gives up to maxConcurrent slots per key at once, independently per key", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 2, maxWaiting: 0 });
    const de = [await limiter.acquire("DE", 0), await limiter.acquire("DE", 0)];
    expect(de.every((release) => release !== null)).toBe(true);
    expect(await limiter.acquire("DE", 0)).toBeNull();
    expect(await limiter.acquire("NL", 0)).not.toBeNull();
    expect(limiter.load("DE")).toEqual({ active: 2, waiting: 0 });
  });

  test("a released slot goes to the longest waiter, first in first out", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 1, maxWaiting: 5 });
    const holder = taken(await limiter.acquire("DE", 0));
    const order: string[] = [];
    const waiters = ["first", "second", "third"].map((name) =>
      limiter.acquire("DE", 5_000).then((release) => {
        order.push(name);
        return taken(release);
      }),
    );
    expect(limiter.load("DE")).toEqual({ active: 1, waiting: 3 });
    holder();
    (await waiters[0])?.();
    (await waiters[1])?.();
    (await waiters[2])?.();
    expect(order).toEqual(["first", "second", "third"]);
    expect(limiter.load("DE")).toEqual({ active: 0, waiting: 0 });
  });

  test("a waiter gives up after its wait and leaves the line", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 1, maxWaiting: 5 });
    taken(await limiter.acquire("DE", 0));
    const { ms } = await timed(async () => expect(await limiter.acquire("DE", 100)).toBeNull());
    expect(ms).toBeGreaterThanOrEqual(95);
    expect(ms).toBeLessThan(100 + SLACK_MS);
    expect(limiter.load("DE")).toEqual({ active: 1, waiting: 0 });
  });

  test("a full line refuses at once", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 1, maxWaiting: 1 });
    const holder = taken(await limiter.acquire("DE", 0));
    const waiting = limiter.acquire("DE", 5_000);
    const { ms } = await timed(async () => expect(await limiter.acquire("DE", 5_000)).toBeNull());
    expect(ms).toBeLessThan(SLACK_MS);
    holder();
    taken(await waiting)();
  });

  test("releasing twice frees one slot only", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 1, maxWaiting: 0 });
    const release = taken(await limiter.acquire("DE", 0));
    release();
    const next = taken(await limiter.acquire("DE", 0));
    release();
    expect(limiter.load("DE")).toEqual({ active: 1, waiting: 0 });
    expect(await limiter.acquire("DE", 0)).toBeNull();
    next();
  });

  test("refuses a configuration without slots", () => {
    expect(() => createKeyedLimiter({ maxConcurrent: 0, maxWaiting: 1 })).toThrow(RangeError);
    expect(() => createKeyedLimiter({ maxConcurrent: 1, maxWaiting: -1 })).toThrow(RangeError);
    expect(() => createKeyedLimiter({ maxConcurrent: 1.5, maxWaiting: 1 })).toThrow(RangeError);
  });

  test("a freed slot goes to the longest-waiting urgent caller before any background one", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 1, maxWaiting: 10 });
    const order: string[] = [];
    const holder = taken(await limiter.acquire("DE", 0));
    const background = { urgent: () => false };
    const noted = (name: string) => (release: Release | null) => {
      order.push(name);
      return release;
    };
    const queued = [
      limiter.acquire("DE", 5_000, background).then(noted("batch 1")),
      limiter.acquire("DE", 5_000, background).then(noted("batch 2")),
      limiter.acquire("DE", 5_000).then(noted("interactive")),
    ];
    holder();
    // Each is released once granted, so the next grant shows who was next in line.
    for (const index of [2, 0, 1]) taken((await queued[index]) ?? null)();
    expect(order).toEqual(["interactive", "batch 1", "batch 2"]);
  });

  test("a background caller that becomes urgent (an interactive request joined its call) moves ahead", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 1, maxWaiting: 10 });
    const order: string[] = [];
    const holder = taken(await limiter.acquire("DE", 0));
    let joined = false;
    const noted = (name: string) => (release: Release | null) => {
      order.push(name);
      return release;
    };
    const first = limiter.acquire("DE", 5_000, { urgent: () => false }).then(noted("batch"));
    const promoted = limiter.acquire("DE", 5_000, { urgent: () => joined }).then(noted("joined"));
    joined = true;
    holder();
    taken(await promoted)();
    taken(await first)();
    expect(order).toEqual(["joined", "batch"]);
  });

  test("the bound on waiting counts urgent callers only: background ones never crowd them out", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 1, maxWaiting: 1 });
    const holder = taken(await limiter.acquire("DE", 0));
    const backgrounds = Array.from({ length: 5 }, () =>
      limiter.acquire("DE", 5_000, { urgent: () => false }),
    );
    const urgent = limiter.acquire("DE", 5_000);
    expect(await limiter.acquire("DE", 5_000)).toBeNull();
    holder();
    taken(await urgent)();
    for (const waiting of backgrounds) taken(await waiting)();
  });

  test("callers that are not urgent take turns by owner: one key's long line does not hold up another's", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 1, maxWaiting: 10 });
    const order: string[] = [];
    const holder = taken(await limiter.acquire("DE", 0));
    const of = (owner: string) => ({ urgent: () => false, owner });
    const queued = ["a1", "a2", "a3", "b1", "b2"].map((name) =>
      limiter.acquire("DE", 5_000, of(name.slice(0, 1))).then((release) => {
        order.push(name);
        return release;
      }),
    );
    holder();
    for (const index of [0, 3, 1, 4, 2]) taken((await queued[index]) ?? null)();
    expect(order).toEqual(["a1", "b1", "a2", "b2", "a3"]);
  });

  test("callers that go last (monitors' checks) wait behind every other caller, and move up when one joins them", async () => {
    const limiter = createKeyedLimiter({ maxConcurrent: 1, maxWaiting: 10 });
    const order: string[] = [];
    const holder = taken(await limiter.acquire("DE", 0));
    let batchJoined = false;
    const noted = (name: string) => (release: Release | null) => {
      order.push(name);
      return release;
    };
    const monitor = { urgent: () => false, last: () => true, owner: "a" };
    const queued = [
      limiter.acquire("DE", 5_000, monitor).then(noted("monitor 1")),
      limiter.acquire("DE", 5_000, { urgent: () => false, owner: "b" }).then(noted("batch")),
      limiter.acquire("DE", 5_000, { ...monitor, last: () => !batchJoined }).then(noted("monitor joined")),
      limiter.acquire("DE", 5_000).then(noted("interactive")),
      limiter.acquire("DE", 5_000, monitor).then(noted("monitor 2")),
    ];
    batchJoined = true;
    holder();
    for (const index of [3, 1, 2, 0, 4]) taken((await queued[index]) ?? null)();
    expect(order).toEqual(["interactive", "batch", "monitor joined", "monitor 1", "monitor 2"]);
  });
});
