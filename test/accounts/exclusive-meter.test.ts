import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { ExclusiveMeter } from "../../src/accounts/exclusive-meter.ts";
import { KeyStore } from "../../src/accounts/key-store.ts";
import { planCatalogue } from "../../src/accounts/plans.ts";
import { type Database, openPglite } from "../../src/db.ts";
import { manualClock } from "../support/manual-clock.ts";

/**
 * What only the embedded meter does — its counts in memory, its journal, its leases in memory —
 * on an embedded database of its own, in both CI runs. The behaviour it shares with the meter
 * on Postgres is in meter.test.ts.
 */
let database: Database;
let keys: KeyStore;
const options = { reservationTtlMs: 60_000 };

beforeAll(async () => {
  database = await openPglite(null);
  await database.migrate();
  keys = new KeyStore(database);
  await keys.syncPlans(planCatalogue(600));
});
afterAll(() => database.close());

async function newKey(): Promise<string> {
  const { record } = await keys.create({
    planId: "free",
    name: "t",
    monthlyQuota: null,
    ratePerMinute: null,
  });
  return record.id;
}

const journalRows = async () =>
  (await database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM usage_journal`))[0]?.n;
const usageRow = async (keyId: string) =>
  (
    await database.rows<{ used: number; requests: number }>(
      sql`SELECT used, requests FROM usage_months WHERE key_id = ${keyId}`,
    )
  )[0];

describe("the embedded meter", () => {
  test("what it answered is recorded: a restarted meter finds the same usage, before any fold", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const keyId = await newKey();
    const before = new ExclusiveMeter(database, clock, options);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        before.admit({ keyId, quota: 20, charge: i % 3 !== 0, reserve: false }),
      ),
    );
    const counted = await before.usage(keyId, clock.now());
    expect(counted).toEqual({ used: 20, requests: 30 });
    const after = new ExclusiveMeter(database, clock, options);
    expect(await after.usage(keyId, clock.now())).toEqual(counted);
    expect(await after.admit({ keyId, quota: 20, charge: true, reserve: false })).toMatchObject({
      ok: false,
      used: 20,
    });
  });

  test("a reservation does not outlive its process: after a restart its unit is free and it is never billed", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const keyId = await newKey();
    const crashed = new ExclusiveMeter(database, clock, options);
    const held = await crashed.admit({ keyId, quota: 1, charge: false, reserve: true });
    expect(held).toMatchObject({ ok: true });
    const restarted = new ExclusiveMeter(database, clock, options);
    expect(await restarted.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({
      ok: true,
      used: 1,
    });
    expect(await restarted.usage(keyId, clock.now())).toEqual({ used: 1, requests: 2 });
  });

  test("folding moves the journal into usage_months without changing any total", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const keyId = await newKey();
    const meter = new ExclusiveMeter(database, clock, options);
    for (let i = 0; i < 5; i++) await meter.admit({ keyId, quota: null, charge: true, reserve: false });
    await meter.fold();
    expect(await journalRows()).toBe(0);
    expect(await usageRow(keyId)).toEqual({ used: 5, requests: 5 });
    await meter.admit({ keyId, quota: null, charge: false, reserve: false });
    expect(await new ExclusiveMeter(database, clock, options).usage(keyId, clock.now())).toEqual({
      used: 5,
      requests: 6,
    });
    await meter.fold();
    expect(await usageRow(keyId)).toEqual({ used: 5, requests: 6 });
  });

  test("a failed record undoes the decision: not counted, not billed, no unit held", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    // A database of its own, since the journal is broken on purpose.
    const own = await openPglite(null);
    await own.migrate();
    const ownKeys = new KeyStore(own);
    await ownKeys.syncPlans(planCatalogue(600));
    const { record } = await ownKeys.create({
      planId: "free",
      name: "t",
      monthlyQuota: null,
      ratePerMinute: null,
    });
    const meter = new ExclusiveMeter(own, clock, options);
    expect(await meter.admit({ keyId: record.id, quota: 1, charge: true, reserve: false })).toMatchObject({
      ok: true,
    });
    // The journal refuses writes from here on, as a full disk would.
    await own.rows(sql`ALTER TABLE usage_journal ADD CONSTRAINT refuse CHECK (false) NOT VALID`);
    await expect(meter.admit({ keyId: record.id, quota: 2, charge: true, reserve: false })).rejects.toThrow();
    await expect(meter.admit({ keyId: record.id, quota: 2, charge: false, reserve: true })).rejects.toThrow();
    expect(await meter.usage(record.id, clock.now())).toEqual({ used: 1, requests: 1 });
    await own.rows(sql`ALTER TABLE usage_journal DROP CONSTRAINT refuse`);
    expect(await meter.admit({ keyId: record.id, quota: 2, charge: true, reserve: false })).toMatchObject({
      ok: true,
      used: 2,
    });
    await own.close();
  });
});
