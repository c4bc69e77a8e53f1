import { describe, expect, test } from "bun:test";
import { createMemoryStore } from "../../src/store/memory.ts";
import { manualClock } from "../support/manual-clock.ts";
import { describeStoreContract } from "./contract.ts";

const clock = manualClock();
describeStoreContract("memory", {
  open: () => createMemoryStore({ maxEntries: 1000, clock }),
  elapse: async (seconds) => clock.advance(seconds * 1000),
});

describe("memory store", () => {
  test("expires at exactly ttl seconds after the write, by its clock", async () => {
    const clock = manualClock();
    const store = createMemoryStore({ maxEntries: 10, clock });
    await store.set("k", "v", 2);
    clock.advance(1999);
    expect(await store.get("k")).toBe("v");
    clock.advance(1);
    expect(await store.get("k")).toBeNull();
  });

  test("a counter's expiry runs from its creation, not from later increments", async () => {
    const clock = manualClock();
    const store = createMemoryStore({ maxEntries: 10, clock });
    await store.incr("c", 1, 10);
    clock.advance(9000);
    await store.incr("c", 1, 10);
    clock.advance(999);
    expect(await store.get("c")).toBe("2");
    clock.advance(1);
    expect(await store.get("c")).toBeNull();
  });

  test("holds at most maxEntries, evicting the least recently used", async () => {
    const store = createMemoryStore({ maxEntries: 3, clock: manualClock() });
    await store.set("a", "1", 60);
    await store.set("b", "2", 60);
    await store.set("c", "3", 60);
    expect(await store.get("a")).toBe("1");
    await store.set("d", "4", 60);
    expect(await store.get("b")).toBeNull();
    expect(await store.get("a")).toBe("1");
    expect(await store.get("c")).toBe("3");
    expect(await store.get("d")).toBe("4");
  });

  test("counts incr and overwrites as uses when choosing what to evict", async () => {
    const store = createMemoryStore({ maxEntries: 2, clock: manualClock() });
    await store.incr("counter", 1, 60);
    await store.set("other", "x", 60);
    await store.incr("counter", 1, 60);
    await store.set("third", "y", 60);
    expect(await store.get("other")).toBeNull();
    expect(await store.get("counter")).toBe("2");
    await store.set("third", "z", 60);
    await store.set("fourth", "w", 60);
    expect(await store.get("counter")).toBeNull();
    expect(await store.get("third")).toBe("z");
  });

  test("an expired entry does not come back when time is moved back", async () => {
    const clock = manualClock();
    const store = createMemoryStore({ maxEntries: 10, clock });
    await store.set("k", "v", 1);
    clock.advance(1000);
    expect(await store.get("k")).toBeNull();
    clock.advance(-1000);
    expect(await store.get("k")).toBeNull();
  });

  test("refuses to increment past the safe integer range", async () => {
    const store = createMemoryStore({ maxEntries: 10, clock: manualClock() });
    await store.set("big", String(Number.MAX_SAFE_INTEGER), 60);
    await expect(store.incr("big", 1, 60)).rejects.toBeInstanceOf(RangeError);
    expect(await store.get("big")).toBe(String(Number.MAX_SAFE_INTEGER));
  });

  test("refuses a bound that is not a positive integer", () => {
    for (const maxEntries of [0, -1, 1.5]) {
      expect(() => createMemoryStore({ maxEntries, clock: manualClock() })).toThrow(RangeError);
    }
  });
});
