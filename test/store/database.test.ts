import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { type Database, openPglite } from "../../src/kernel/db.ts";
import { createDatabaseStore } from "../../src/store/database.ts";
import { secondConnection, testDatabase, usingPostgres } from "../support/database.ts";
import { manualClock } from "../support/manual-clock.ts";
import { describeStoreContract } from "./contract.ts";

let database: Database;
beforeAll(async () => {
  database = await testDatabase();
});

// Rows expire by the database's clock, so time passes for real; the in-process copies are
// bounded to one second, so what expires in the table is seen expired in process as well.
const clock = { now: () => Date.now() };
describeStoreContract("database", {
  open: () =>
    createDatabaseStore(database, {
      maxEntries: 10_000,
      memoryMaxEntries: 100,
      memoryMaxAgeSeconds: 1,
      clock,
    }),
  elapse: (seconds) => Bun.sleep(seconds * 1000),
});

describe("database store", () => {
  test("what one store wrote, a store opened later reads from the table (a restart)", async () => {
    const prefix = `db-store:${crypto.randomUUID()}:`;
    const first = createDatabaseStore(database, {
      maxEntries: 10_000,
      memoryMaxEntries: 10,
      memoryMaxAgeSeconds: Number.POSITIVE_INFINITY,
      clock: manualClock(),
    });
    await first.set(`${prefix}a`, "kept", 3600);
    await first.close();
    const second = createDatabaseStore(database, {
      maxEntries: 10_000,
      memoryMaxEntries: 10,
      memoryMaxAgeSeconds: Number.POSITIVE_INFINITY,
      clock: manualClock(),
    });
    expect(await second.get(`${prefix}a`)).toBe("kept");
    await second.close();
  });

  test("a sweep deletes expired rows, then the ones closest to expiry beyond the bound", async () => {
    // A database of its own: the bound counts every row of the table.
    const own = await openPglite(null);
    try {
      await own.migrate();
      const options = { memoryMaxEntries: 10, memoryMaxAgeSeconds: 1, clock };
      const store = createDatabaseStore(own, { maxEntries: 2, ...options });
      await store.set("expiring", "x", 1);
      for (const [name, ttl] of [
        ["a", 100],
        ["b", 300],
        ["c", 200],
      ] as const)
        await store.set(name, "x", ttl);
      await Bun.sleep(1100);
      await store.sweep();
      const keys = await own.rows<{ key: string }>(sql`SELECT key FROM cache_entries ORDER BY key`);
      expect(keys.map((row) => row.key)).toEqual(["b", "c"]);
      await store.close();
    } finally {
      await own.close();
    }
  });
});

const other = secondConnection();
describe.if(usingPostgres)("database store shared by two instances", () => {
  test("one instance's write is read by the other, and replaced values are seen within the copy's bound", async () => {
    if (!other) return;
    const key = `db-store:${crypto.randomUUID()}`;
    const options = { maxEntries: 10_000, memoryMaxEntries: 10, memoryMaxAgeSeconds: 1, clock };
    const a = createDatabaseStore(database, options);
    const b = createDatabaseStore(other, options);
    await a.set(key, "one", 60);
    expect(await b.get(key)).toBe("one");
    await a.set(key, "two", 60);
    await Bun.sleep(1100);
    expect(await b.get(key)).toBe("two");
    await a.close();
    await b.close();
    await other.close();
  });
});
