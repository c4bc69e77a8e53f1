import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createBatch } from "../../src/batches/store.ts";
import { claimItems, type ItemOutcome, keepClaimed, renewLeases } from "../../src/batches/work.ts";
import type { Database } from "../../src/kernel/db.ts";
import { proKey, testKeyStore } from "../support/database.ts";

/** The claims of batch items, on the real database: each claim holds its items under a token of its own. */
let database: Database;
let keyId: string;

beforeAll(async () => {
  const store = await testKeyStore();
  database = store.database;
  keyId = await proKey(store.keys, "claims");
});

const outcome = (item: ItemOutcome["item"]): ItemOutcome => ({
  item,
  status: "done",
  vat: null,
  iban: null,
  error: null,
  valid: true,
});

async function newBatch(size: number) {
  const batch = await createBatch(database, {
    keyId,
    items: Array.from({ length: size }, (_, index) => ({ vat: `DE${index}` })),
    webhookUrl: null,
    plan: { id: "pro", limits: { active: 100, itemsPerDay: 100_000 } },
  });
  return { id: batch.id, keyId };
}

describe("claims", () => {
  test("a claim skips what another claim holds, and takes it once its lease has run out", async () => {
    const batch = await newBatch(4);
    const first = await claimItems(database, batch, 2, 300);
    const second = await claimItems(database, batch, 10, 60_000);
    expect(first.map((item) => item.index)).toEqual([0, 1]);
    expect(second.map((item) => item.index)).toEqual([2, 3]);
    expect(first[0]?.token).not.toBe(second[0]?.token);
    expect(await claimItems(database, batch, 10, 60_000)).toEqual([]);
    await Bun.sleep(350);
    const again = await claimItems(database, batch, 10, 60_000);
    expect(again.map((item) => [item.index, item.attempts])).toEqual([
      [0, 2],
      [1, 2],
    ]);
  });

  test("an item claimed twice (its lease ran out while it was worked on) stands once: for the latest claim", async () => {
    const batch = await newBatch(1);
    const [stale] = await claimItems(database, batch, 1, 100);
    await Bun.sleep(150);
    const [latest] = await claimItems(database, batch, 1, 60_000);
    if (!stale || !latest) throw new Error("expected both claims");
    const kept = await database.transaction((rows) =>
      keepClaimed(rows, [outcome(stale), outcome(latest), outcome(latest)]),
    );
    expect(kept).toEqual([false, true, false]);
  });

  test("renewing keeps a claim's items from being taken; items no longer renewed are", async () => {
    const batch = await newBatch(2);
    const [held, dropped] = await claimItems(database, batch, 2, 300);
    await Bun.sleep(200);
    await renewLeases(database, [held?.token ?? ""], 60_000);
    await Bun.sleep(150);
    // Both came from one claim, so renewing its token kept both.
    expect(await claimItems(database, batch, 10, 60_000)).toEqual([]);
    expect(dropped?.token).toBe(held?.token);
    const [row] = await database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM batch_items WHERE batch_id = ${batch.id} AND lease_until > now() + interval '30 seconds'`,
    );
    expect(row?.n).toBe(2);
  });
});
