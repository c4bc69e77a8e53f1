import { describe, expect, test } from "bun:test";
import { createKeyValueStore } from "../../src/store/factory.ts";
import { manualClock } from "../support/manual-clock.ts";

// Choosing a store connects to nothing, so these need no server.
describe("createKeyValueStore", () => {
  const clock = manualClock();
  const upstash = { upstashUrl: "https://eu1-example.upstash.io", upstashToken: "token" };
  const redisUrl = "redis://127.0.0.1:6379";

  test("picks Upstash when its URL and token are set, even with a Redis URL", async () => {
    const store = createKeyValueStore({ ...upstash, redisUrl, timeoutMs: 100 }, clock);
    expect(store.kind).toBe("upstash");
    await store.close();
  });

  test("picks Redis when only a Redis URL is set", async () => {
    const store = createKeyValueStore({ redisUrl, timeoutMs: 100 }, clock);
    expect(store.kind).toBe("redis");
    await store.close();
  });

  test("picks the in-process store otherwise, driven by the given clock and bound", async () => {
    const own = manualClock();
    const store = createKeyValueStore({ memoryMaxEntries: 1, timeoutMs: 100 }, own);
    expect(store.kind).toBe("memory");
    await store.set("a", "1", 1);
    await store.set("b", "2", 1);
    expect(await store.get("a")).toBeNull();
    expect(await store.get("b")).toBe("2");
    own.advance(1000);
    expect(await store.get("b")).toBeNull();
  });

  test("treats empty settings as unset", async () => {
    const store = createKeyValueStore(
      { upstashUrl: "", upstashToken: "", redisUrl: "", timeoutMs: 100 },
      clock,
    );
    expect(store.kind).toBe("memory");
  });

  test("refuses half an Upstash configuration instead of falling back", () => {
    expect(() =>
      createKeyValueStore({ upstashUrl: upstash.upstashUrl, redisUrl, timeoutMs: 100 }, clock),
    ).toThrow(/Upstash/);
    expect(() => createKeyValueStore({ upstashToken: "token", timeoutMs: 100 }, clock)).toThrow(/Upstash/);
  });
});
