import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { ExclusiveMeter } from "../../src/accounts/exclusive-meter.ts";
import { KeyStore } from "../../src/accounts/key-store.ts";
import { planCatalogue } from "../../src/accounts/plans.ts";
import { UsageLog } from "../../src/accounts/usage-log.ts";
import { type Database, openPglite } from "../../src/kernel/db.ts";
import { manualClock } from "../support/manual-clock.ts";

/**
 * What only the embedded meter does — its counts in memory, its usage log, its leases in memory —
 * on an embedded database of its own, in both CI runs. Each test's meters share a data
 * directory for the log, as the successive processes of one server would. The behaviour it shares with the meter
 * on Postgres is in meter.test.ts.
 */
let database: Database;
let keys: KeyStore;
const options = { reservationTtlMs: 60_000 };
const dataDirs: string[] = [];

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "exclusive-meter-"));
  dataDirs.push(dir);
  return dir;
}

/** A meter as a server on `dataDir` would have it. */
const meterOn = (dataDir: string, clock: ReturnType<typeof manualClock>) =>
  new ExclusiveMeter(database, clock, options, UsageLog.of(dataDir));

const segments = (dataDir: string) => readdirSync(join(dataDir, "usage-log"));

/** A new key and a meter on a data directory of its own, as a server's first start. */
async function startedMeter() {
  const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
  const keyId = await newKey();
  const dataDir = newDataDir();
  return { clock, keyId, dataDir, meter: meterOn(dataDir, clock) };
}

/** The path of the one segment file written so far. */
function onlySegment(dataDir: string): string {
  const [segment] = segments(dataDir);
  if (!segment) throw new Error("no segment written");
  return join(dataDir, "usage-log", segment);
}

beforeAll(async () => {
  database = await openPglite(null);
  await database.migrate();
  keys = new KeyStore(database);
  await keys.syncPlans(planCatalogue(600));
});
afterAll(async () => {
  await database.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function newKey(): Promise<string> {
  const { record } = await keys.create({
    planId: "free",
    name: "t",
    monthlyQuota: null,
    ratePerMinute: null,
  });
  return record.id;
}

const usageRow = async (keyId: string) =>
  (
    await database.rows<{ used: number; requests: number }>(
      sql`SELECT used, requests FROM usage_months WHERE key_id = ${keyId}`,
    )
  )[0];

describe("the embedded meter", () => {
  test("what it answered is recorded: a restarted meter finds the same usage, before any fold", async () => {
    const { clock, keyId, dataDir, meter: before } = await startedMeter();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        before.admit({ keyId, quota: 20, charge: i % 3 !== 0, reserve: false }),
      ),
    );
    const counted = await before.usage(keyId, clock.now());
    expect(counted).toEqual({ used: 20, requests: 30 });
    expect(await usageRow(keyId)).toBeUndefined();
    // The first process ends as by kill -9: nothing folded, its segment still open.
    const after = meterOn(dataDir, clock);
    expect(await after.usage(keyId, clock.now())).toEqual(counted);
    expect(await after.admit({ keyId, quota: 20, charge: true, reserve: false })).toMatchObject({
      ok: false,
      used: 20,
    });
  });

  test("a reservation does not outlive its process: after a restart its unit is free and it is never billed", async () => {
    const { clock, keyId, dataDir, meter: crashed } = await startedMeter();
    const held = await crashed.admit({ keyId, quota: 1, charge: false, reserve: true });
    expect(held).toMatchObject({ ok: true });
    const restarted = meterOn(dataDir, clock);
    expect(await restarted.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({
      ok: true,
      used: 1,
    });
    expect(await restarted.usage(keyId, clock.now())).toEqual({ used: 1, requests: 2 });
  });

  test("folding moves the log into usage_months without changing any total", async () => {
    const { keyId, dataDir, meter } = await startedMeter();
    for (let i = 0; i < 5; i++) await meter.admit({ keyId, quota: null, charge: true, reserve: false });
    await meter.fold();
    expect(segments(dataDir)).toEqual([]);
    expect(await usageRow(keyId)).toEqual({ used: 5, requests: 5 });
    await meter.admit({ keyId, quota: null, charge: false, reserve: false });
    await meter.fold();
    expect(await usageRow(keyId)).toEqual({ used: 5, requests: 6 });
    await meter.admit({ keyId, quota: null, charge: true, reserve: false });
    await meter.close();
    expect(segments(dataDir)).toEqual([]);
    expect(await usageRow(keyId)).toEqual({ used: 6, requests: 7 });
  });

  test("on an in-memory database the log is kept in memory and folds the same, meter beside meter", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const [first, second] = [await newKey(), await newKey()];
    // Two apps of one test process on one in-memory database, both numbering segments from 1.
    const one = new ExclusiveMeter(database, clock, options);
    const other = new ExclusiveMeter(database, clock, options);
    for (let i = 0; i < 4; i++) {
      await one.admit({ keyId: first, quota: null, charge: i > 0, reserve: false });
      await other.admit({ keyId: second, quota: null, charge: true, reserve: false });
    }
    expect(await usageRow(first)).toBeUndefined();
    await one.close();
    await other.close();
    expect(await usageRow(first)).toEqual({ used: 3, requests: 4 });
    expect(await usageRow(second)).toEqual({ used: 4, requests: 4 });
  });

  test("a segment is folded once, even when a crash left its file behind after the fold", async () => {
    const { clock, keyId, dataDir, meter } = await startedMeter();
    for (let i = 0; i < 3; i++) await meter.admit({ keyId, quota: null, charge: true, reserve: false });
    const segment = onlySegment(dataDir);
    const content = await Bun.file(segment).text();
    await meter.fold();
    // The file reappears as if the process had died between the fold's commit and the unlink.
    await Bun.write(segment, content);
    const restarted = meterOn(dataDir, clock);
    expect(await restarted.usage(keyId, clock.now())).toEqual({ used: 3, requests: 3 });
    expect(segments(dataDir)).toEqual([]);
    // New segments are numbered after the folded ones, so none of them is taken as folded.
    await restarted.admit({ keyId, quota: null, charge: true, reserve: false });
    expect(onlySegment(dataDir) > segment).toBe(true);
    await meterOn(dataDir, clock).usage(keyId, clock.now());
    expect(await usageRow(keyId)).toEqual({ used: 4, requests: 4 });
  });

  test("a line torn by a crash during its write is skipped: its batch was never answered", async () => {
    const { clock, keyId, dataDir, meter } = await startedMeter();
    await meter.admit({ keyId, quota: null, charge: true, reserve: false });
    appendFileSync(onlySegment(dataDir), `[["${keyId}","2026-03-01",1,`);
    expect(await meterOn(dataDir, clock).usage(keyId, clock.now())).toEqual({ used: 1, requests: 1 });
  });

  test("a failed record undoes the decision: not counted, not billed, no unit held", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    // A database of its own, since its log is broken on purpose.
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
    const dataDir = newDataDir();
    const log = UsageLog.of(dataDir);
    const meter = new ExclusiveMeter(own, clock, options, log);
    expect(await meter.admit({ keyId: record.id, quota: 1, charge: true, reserve: false })).toMatchObject({
      ok: true,
    });
    // The log refuses writes from here on, as a full disk would.
    const append = log.append.bind(log);
    log.append = () => {
      throw new Error("ENOSPC: no space left on device");
    };
    await expect(meter.admit({ keyId: record.id, quota: 2, charge: true, reserve: false })).rejects.toThrow();
    await expect(meter.admit({ keyId: record.id, quota: 2, charge: false, reserve: true })).rejects.toThrow();
    expect(await meter.usage(record.id, clock.now())).toEqual({ used: 1, requests: 1 });
    log.append = append;
    expect(await meter.admit({ keyId: record.id, quota: 2, charge: true, reserve: false })).toMatchObject({
      ok: true,
      used: 2,
    });
    await meter.close();
    const restarted = new ExclusiveMeter(own, clock, options, UsageLog.of(dataDir));
    expect(await restarted.usage(record.id, clock.now())).toEqual({ used: 2, requests: 2 });
    await own.close();
  });
});
