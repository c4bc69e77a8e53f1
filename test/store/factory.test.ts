import { beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "../../src/kernel/db.ts";
import { createKeyValueStore } from "../../src/store/factory.ts";
import { testDatabase } from "../support/database.ts";
import { manualClock } from "../support/manual-clock.ts";

// Choosing a store connects to nothing, so these need no server.
describe("createKeyValueStore", () => {
  const clock = manualClock();
  const upstash = { upstashUrl: "https://eu1-example.upstash.io", upstashToken: "token" };
  const redisUrl = "redis://127.0.0.1:6379";
  let database: Database;
  beforeAll(async () => {
    database = await testDatabase();
  });

  test("picks Upstash when its URL and token are set, even with a Redis URL", async () => {
    const store = createKeyValueStore({ ...upstash, redisUrl, timeoutMs: 100 }, { clock, database });
    expect(store.kind).toBe("upstash");
    await store.close();
  });

  test("picks Redis when only a Redis URL is set", async () => {
    const store = createKeyValueStore({ redisUrl, timeoutMs: 100 }, { clock, database });
    expect(store.kind).toBe("redis");
    await store.close();
  });

  test("picks the database otherwise", async () => {
    const store = createKeyValueStore({ timeoutMs: 100 }, { clock, database });
    expect(store.kind).toBe("database");
    await store.set("factory:a", "1", 60);
    expect(await store.get("factory:a")).toBe("1");
    await store.close();
  });

  test("treats empty settings as unset", async () => {
    const store = createKeyValueStore(
      { upstashUrl: "", upstashToken: "", redisUrl: "", timeoutMs: 100 },
      { clock, database },
    );
    expect(store.kind).toBe("database");
    await store.close();
  });

  test("refuses half an Upstash configuration instead of falling back", () => {
    expect(() =>
      createKeyValueStore({ upstashUrl: upstash.upstashUrl, redisUrl, timeoutMs: 100 }, { clock, database }),
    ).toThrow(/Upstash/);
    expect(() => createKeyValueStore({ upstashToken: "token", timeoutMs: 100 }, { clock, database })).toThrow(
      /Upstash/,
    );
  });
});
