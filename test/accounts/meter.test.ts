import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { KeyStore } from "../../src/accounts/key-store.ts";
import { createMeter, type Meter } from "../../src/accounts/meter.ts";
import type { Database } from "../../src/kernel/db.ts";
import { secondConnection, testKeyStore } from "../support/database.ts";
import { manualClock } from "../support/manual-clock.ts";

let database: Database;
let keys: KeyStore;

beforeAll(async () => {
  ({ database, keys } = await testKeyStore());
});

async function newKey(): Promise<string> {
  const { record } = await keys.create({
    planId: "free",
    name: "meter test",
    monthlyQuota: null,
    ratePerMinute: null,
  });
  return record.id;
}

describe("meter", () => {
  test("charges count against the quota and refuse past it", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const meter = createMeter(database, clock, { reservationTtlMs: 60_000 });
    const keyId = await newKey();
    for (let i = 1; i <= 3; i++) {
      const admission = await meter.admit({ keyId, quota: 3, charge: true, reserve: false });
      expect(admission).toMatchObject({ ok: true, used: i, charged: true });
    }
    expect(await meter.admit({ keyId, quota: 3, charge: true, reserve: false })).toMatchObject({
      ok: false,
      used: 3,
    });
    expect(await meter.admit({ keyId, quota: 3, charge: false, reserve: false })).toMatchObject({
      ok: true,
      used: 3,
    });
    expect(await meter.usage(keyId, clock.now())).toEqual({ used: 3, requests: 5 });
  });

  test("200 concurrent billable requests with 50 units left: exactly 50 billed", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const meter = createMeter(database, clock, { reservationTtlMs: 60_000 });
    const keyId = await newKey();
    for (let i = 0; i < 50; i++) await meter.admit({ keyId, quota: 100, charge: true, reserve: false });
    const results = await Promise.all(
      Array.from({ length: 200 }, () => meter.admit({ keyId, quota: 100, charge: true, reserve: false })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(50);
    expect(results.filter((r) => !r.ok)).toHaveLength(150);
    expect(new Set(results.filter((r) => r.ok).map((r) => r.used)).size).toBe(50);
    expect(await meter.usage(keyId, clock.now())).toEqual({ used: 100, requests: 250 });
  });

  test("200 concurrent reservations with 50 units left: exactly 50 held, each billed once when settled", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const meter = createMeter(database, clock, { reservationTtlMs: 60_000 });
    const keyId = await newKey();
    for (let i = 0; i < 50; i++) await meter.admit({ keyId, quota: 100, charge: true, reserve: false });
    const results = await Promise.all(
      Array.from({ length: 200 }, () => meter.admit({ keyId, quota: 100, charge: false, reserve: true })),
    );
    const held = results.flatMap((r) => (r.ok && r.reservation ? [r.reservation] : []));
    expect(held).toHaveLength(50);
    expect(results.filter((r) => !r.ok)).toHaveLength(150);
    const settled = await Promise.all(held.map((reservation) => meter.settle(reservation, true)));
    expect(settled.every((s) => s.billed)).toBe(true);
    expect(new Set(settled.map((s) => s.used)).size).toBe(50);
    expect(await meter.usage(keyId, clock.now())).toEqual({ used: 100, requests: 250 });
  });

  test("closing releases, unbilled, the reservations still open (requests cut off at shutdown)", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const stopping = createMeter(database, clock, { reservationTtlMs: 60_000 });
    const keyId = await newKey();
    const held = await stopping.admit({ keyId, quota: 1, charge: false, reserve: true });
    expect(held).toMatchObject({ ok: true });
    await stopping.close();
    const next = createMeter(database, clock, { reservationTtlMs: 60_000 });
    expect(await next.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({
      ok: true,
      used: 1,
    });
    if (!held.ok || !held.reservation) throw new Error("expected a reservation");
    // A settlement arriving after the release bills nothing.
    expect(await next.settle(held.reservation, true)).toMatchObject({ billed: false });
    expect(await next.usage(keyId, clock.now())).toEqual({ used: 1, requests: 2 });
  });

  test("reservations hold units until settled; released units are never billed", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const meter = createMeter(database, clock, { reservationTtlMs: 60_000 });
    const keyId = await newKey();
    const first = await meter.admit({ keyId, quota: 2, charge: false, reserve: true });
    const second = await meter.admit({ keyId, quota: 2, charge: false, reserve: true });
    expect(first.ok && second.ok).toBe(true);
    expect(await meter.admit({ keyId, quota: 2, charge: true, reserve: false })).toMatchObject({ ok: false });
    if (!first.ok || !second.ok || !first.reservation || !second.reservation)
      throw new Error("expected reservations");
    expect(await meter.settle(first.reservation, true)).toEqual({ used: 1, billed: true });
    expect(await meter.settle(second.reservation, false)).toEqual({ used: 1, billed: false });
    expect(await meter.admit({ keyId, quota: 2, charge: true, reserve: false })).toMatchObject({
      ok: true,
      used: 2,
    });
    expect(await meter.usage(keyId, clock.now())).toEqual({ used: 2, requests: 4 });
  });

  test("a reservation left unsettled (a crashed instance) is swept after its lease and never billed", async () => {
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    // Time passes for real too: on Postgres leases run on the database's clock.
    const pass = async (ms: number) => {
      clock.advance(ms);
      await Bun.sleep(ms);
    };
    const meter = createMeter(database, clock, { reservationTtlMs: 3_000 });
    const keyId = await newKey();
    const held = await meter.admit({ keyId, quota: 1, charge: false, reserve: true });
    expect(await meter.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({ ok: false });
    await pass(1_000);
    await meter.sweepExpired();
    expect(await meter.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({ ok: false });
    await pass(2_100);
    await meter.sweepExpired();
    expect(await meter.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({
      ok: true,
      used: 1,
    });
    if (!held.ok || !held.reservation) throw new Error("expected a reservation");
    expect(await meter.settle(held.reservation, true)).toEqual({ used: 1, billed: false });
    expect(await meter.usage(keyId, clock.now())).toMatchObject({ used: 1 });
  });

  test("the quota resets at 00:00 UTC on the 1st", async () => {
    const clock = manualClock(Date.parse("2026-01-31T23:59:59.999Z"));
    const meter = createMeter(database, clock, { reservationTtlMs: 60_000 });
    const keyId = await newKey();
    expect(await meter.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({
      ok: true,
      resetMs: Date.parse("2026-02-01T00:00:00Z"),
    });
    expect(await meter.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({ ok: false });
    clock.advance(1);
    expect(await meter.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({
      ok: true,
      used: 1,
      resetMs: Date.parse("2026-03-01T00:00:00Z"),
    });
    expect(await meter.usage(keyId, Date.parse("2026-01-15T00:00:00Z"))).toEqual({ used: 1, requests: 2 });
    expect(await meter.usage(keyId, clock.now())).toEqual({ used: 1, requests: 1 });
  });

  test("a null quota never refuses", async () => {
    const clock = manualClock();
    const meter = createMeter(database, clock, { reservationTtlMs: 60_000 });
    const keyId = await newKey();
    for (let i = 0; i < 20; i++) await meter.admit({ keyId, quota: null, charge: true, reserve: false });
    expect(await meter.usage(keyId, clock.now())).toEqual({ used: 20, requests: 20 });
  });
});

const second = secondConnection();
afterAll(() => second?.close());

describe.if(second !== null)("meter across two instances sharing Postgres", () => {
  test("200 concurrent requests through two meters with 50 units left: exactly 50 billed", async () => {
    if (!second) return;
    const clock = manualClock(Date.parse("2026-03-15T12:00:00Z"));
    const meters = [
      createMeter(database, clock, { reservationTtlMs: 60_000 }),
      createMeter(second, clock, { reservationTtlMs: 60_000 }),
    ];
    const keyId = await newKey();
    for (let i = 0; i < 50; i++) await meters[0]?.admit({ keyId, quota: 100, charge: true, reserve: false });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        (meters[i % 2] as Meter).admit({ keyId, quota: 100, charge: i % 3 !== 0, reserve: i % 3 === 0 }),
      ),
    );
    const admitted = results.filter((r) => r.ok);
    expect(admitted).toHaveLength(50);
    const settles = await Promise.all(
      admitted.flatMap((r, i) =>
        r.ok && r.reservation ? [(meters[i % 2] as Meter).settle(r.reservation, true)] : [],
      ),
    );
    expect(settles.every((s) => s.billed)).toBe(true);
    expect(await meters[0]?.usage(keyId, clock.now())).toEqual({ used: 100, requests: 250 });
  });
});
