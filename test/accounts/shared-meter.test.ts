import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { KeyStore } from "../../src/accounts/key-store.ts";
import type { MeterAdmission } from "../../src/accounts/meter.ts";
import { SharedMeter } from "../../src/accounts/shared-meter.ts";
import type { Database } from "../../src/kernel/db.ts";
import { testKeyStore } from "../support/database.ts";
import { manualClock } from "../support/manual-clock.ts";

// The meter of several instances sharing Postgres; it runs on PGlite too, so these tests run
// in both CI runs.
let database: Database;
let keys: KeyStore;

beforeAll(async () => {
  ({ database, keys } = await testKeyStore());
});

const START = Date.parse("2026-03-15T12:00:00Z");

async function newKey(): Promise<string> {
  const created = await keys.create({
    planId: "pro",
    name: "shared meter",
    monthlyQuota: null,
    ratePerMinute: null,
  });
  return created.record.id;
}

async function usageRow(keyId: string): Promise<{ used: number; requests: number } | null> {
  const [row] = await database.rows<{ used: number; requests: number }>(
    sql`SELECT used, requests FROM usage_months WHERE key_id = ${keyId}`,
  );
  return row ?? null;
}

type Step = "first charge" | "row creation" | "second charge";

/**
 * The database with one statement of a charge batch failing: the charge of the rows that
 * exist, the creation of the missing ones, or the charge of those. Everything else reaches
 * the real database.
 */
function failing(step: Step | null): Database {
  let charges = 0;
  const fault = () => Object.assign(new Error(`injected failure of the ${step}`), { code: "XX000" });
  return {
    ...database,
    async prepared(text, params) {
      charges += 1;
      if ((step === "first charge" && charges === 1) || (step === "second charge" && charges === 2))
        throw fault();
      return database.prepared(text, params);
    },
    async rows(query) {
      if (step === "row creation") throw fault();
      return database.rows(query);
    },
  };
}

describe("a charge batch mixing a key's first request of the month with others", () => {
  const cases: { step: Step | null; existing: "billed" | "failed"; first: "billed" | "failed" }[] = [
    { step: null, existing: "billed", first: "billed" },
    { step: "first charge", existing: "failed", first: "failed" },
    { step: "row creation", existing: "billed", first: "failed" },
    { step: "second charge", existing: "billed", first: "failed" },
  ];
  for (const { step, existing, first } of cases) {
    test(`${step ? `the ${step} failing` : "no failure"}: each request answered from the commit that carried it`, async () => {
      const clock = manualClock(START);
      const known = await newKey();
      const fresh = await newKey();
      // `known` has its row for the month already.
      await new SharedMeter(database, clock, { reservationTtlMs: 60_000 }).admit({
        keyId: known,
        quota: 100,
        charge: true,
        reserve: false,
      });
      const meter = new SharedMeter(failing(step), clock, { reservationTtlMs: 60_000 });
      const answers = await Promise.allSettled([
        meter.admit({ keyId: known, quota: 100, charge: true, reserve: false }),
        meter.admit({ keyId: fresh, quota: 100, charge: true, reserve: false }),
        meter.admit({ keyId: known, quota: 100, charge: true, reserve: false }),
      ]);
      const outcome = (answer: PromiseSettledResult<MeterAdmission>) =>
        answer.status === "fulfilled" && answer.value.ok && answer.value.charged ? "billed" : "failed";
      expect(answers.map(outcome)).toEqual([existing, first, existing]);
      // What the requests were told is what the usage rows hold: nothing billed for a failure.
      expect(await usageRow(known)).toEqual(
        existing === "billed" ? { used: 3, requests: 3 } : { used: 1, requests: 1 },
      );
      const row = await usageRow(fresh);
      expect(row?.used ?? 0).toBe(first === "billed" ? 1 : 0);
      expect(row?.requests ?? 0).toBe(first === "billed" ? 1 : 0);
      if (existing === "billed") {
        const used = answers.flatMap((answer) => (answer.status === "fulfilled" ? [answer.value.used] : []));
        // The known key's two units are its second and third; the first key's, its first.
        expect(used.sort()).toEqual(first === "billed" ? [1, 2, 3] : [2, 3]);
      }
    });
  }
});

describe("reservation leases", () => {
  test("are judged on the database's clock: an instance whose clock runs a minute ahead sweeps nothing live", async () => {
    const keyId = await newKey();
    const behind = new SharedMeter(database, manualClock(START), { reservationTtlMs: 10_000 });
    const ahead = new SharedMeter(database, manualClock(START + 60_000), { reservationTtlMs: 10_000 });
    const held = await behind.admit({ keyId, quota: 1, charge: false, reserve: true });
    if (!held.ok || !held.reservation) throw new Error("expected a reservation");
    await ahead.sweepExpired();
    expect(await ahead.admit({ keyId, quota: 1, charge: true, reserve: false })).toMatchObject({ ok: false });
    expect(await behind.settle(held.reservation, true)).toEqual({ used: 1, billed: true });
    expect(await usageRow(keyId)).toEqual({ used: 1, requests: 2 });
  });
});
