import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { dueUnits, settleUnits } from "../background/due-units.ts";
import type { FairShare } from "../background/fair-share.ts";
import { pickWithinCap } from "../background/target-cap.ts";
import { type Database, jsonb, type Rows } from "../kernel/db.ts";
import type { MatchRequest } from "../matching/schema.ts";
import type { VatResult } from "../vat/schema.ts";
import { claimableChecks, dueChecks, MONITOR_CHECKS } from "./due.ts";
import { at } from "./store.ts";

/**
 * The claims of due checks by workers, in the database so that several instances share them
 * and an instance that dies leaves nothing behind — as batch items are claimed
 * (`src/batches/work.ts`): a claim leases its monitors under a token of its own until
 * `lease_until` (the database's clock); the transaction that finishes a check locks the
 * monitor and checks that it is still under that token (`keepClaimed`), so a check whose
 * lease ran out and was claimed again — by another instance or by this one — or whose
 * monitor was deleted meanwhile, is finished, billed and compared once.
 *
 * Keys with checks due are found in `work_due` (`src/monitors/due.ts`), their due checks through
 * the partial index on (`key_id`, `next_check_at`), earliest first: a worker reads the monitors
 * that are due, never all of them, and takes the keys in turn, each within its fair share of
 * the worker's slots, so one key's many or slow checks do not hold up another's.
 */

/** A check a worker holds. */
export type ClaimedCheck = {
  monitorId: string;
  keyId: string;
  vatNumber: string;
  /** Its member state (VAT prefix), whose authority the check waits for. */
  prefix: string;
  match: MatchRequest | null;
  /** Attempts of this round that met an outage so far, and when the first did (service clock). */
  attempts: number;
  retrySinceMs: number | null;
  token: string;
};

/**
 * Prepares this instance's claims: every key with scheduled checks has its row in `work_due`
 * (keys from before it existed get theirs here), and the sole worker of an embedded database
 * drops the leases a crash left.
 */
export async function prepareChecks(database: Database, soleWorker: boolean): Promise<void> {
  await database.rows(sql`
    INSERT INTO work_due (queue, unit, key_id, due_at)
    SELECT ${MONITOR_CHECKS.name}, key_id, key_id, min(next_check_at) FROM monitors
    WHERE next_check_at IS NOT NULL GROUP BY key_id
    ON CONFLICT (queue, unit) DO NOTHING`);
  if (soleWorker) await releaseLeases(database, null);
}

/**
 * The keys with checks due at `nowMs`, in turn from after `afterKey`, with how many of their
 * first `limit` checks due a worker holding `slots` could take (none of a member state
 * at its cap); keys whose checks all wait are not looked at.
 */
export async function dueKeys(
  database: Database,
  nowMs: number,
  afterKey: string,
  limit: number,
  slots: FairShare,
): Promise<{ keyId: string; due: number }[]> {
  return (await dueUnits(database, claimableChecks(slots, nowMs), afterKey, limit)).map(({ keyId, due }) => ({
    keyId,
    due,
  }));
}

/**
 * Leases, of each wanted key, up to `take` of its checks due at `nowMs` (the service's clock),
 * earliest first, for `leaseMs`, in one statement; those leased by another claim are skipped,
 * not waited for. Of the first `window` checks due of each key, those of a member state are
 * taken only up to the room `slots` has left for it, the keys holding least of it first; the others wait,
 * unclaimed. Keys that had fewer due than wanted, and the `idle` ones, are settled.
 */
export async function claimChecks(
  database: Database,
  nowMs: number,
  wanted: { keyId: string; take: number }[],
  leaseMs: number,
  idle: string[],
  within: { slots: FairShare; window: number },
): Promise<ClaimedCheck[]> {
  if (wanted.length === 0) {
    await settleUnits(database, MONITOR_CHECKS, idle);
    return [];
  }
  const token = `m_${randomBytes(9).toString("hex")}`;
  const rows = await database.rows<{
    id: string;
    key_id: string;
    vat_number: string;
    match: string | null;
    attempts: number;
    retry_since_ms: number | null;
  }>(sql`
    WITH wanted AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(wanted.map(({ keyId, take }) => ({ key: keyId, take })))}::jsonb)
        AS w(key text, take int)
    ), candidates AS (
      SELECT d.key_id AS unit, d.key_id AS key, d.id AS item, d.target,
        row_number() OVER (PARTITION BY d.key_id ORDER BY d.next_check_at, d.id) AS pos
      FROM wanted w CROSS JOIN LATERAL (
        ${dueChecks(sql`GREATEST(w.take, ${within.window})`, sql`w.key`, nowMs)} FOR UPDATE SKIP LOCKED) d
    ), picked AS (
      ${pickWithinCap(sql`SELECT * FROM candidates`, sql`SELECT key AS unit, take FROM wanted`, within.slots)}
    )
    UPDATE monitors m SET lease_token = ${token},
      lease_until = now() + ${leaseMs} * interval '1 millisecond'
    FROM picked WHERE m.id = picked.item
    RETURNING m.id, m.key_id, m.vat_number, m.match::text AS match, m.attempts,
      (extract(epoch FROM m.retry_since) * 1000)::float8 AS retry_since_ms`);
  const claimed = new Map<string, number>();
  for (const row of rows) claimed.set(row.key_id, (claimed.get(row.key_id) ?? 0) + 1);
  await settleUnits(database, MONITOR_CHECKS, [
    ...idle,
    ...wanted.filter(({ keyId, take }) => (claimed.get(keyId) ?? 0) < take).map(({ keyId }) => keyId),
  ]);
  return rows.map((row) => ({
    monitorId: row.id,
    keyId: row.key_id,
    vatNumber: row.vat_number,
    prefix: row.vat_number.slice(0, 2),
    match: row.match === null ? null : (JSON.parse(row.match) as MatchRequest),
    attempts: row.attempts,
    retrySinceMs: row.retry_since_ms === null ? null : Number(row.retry_since_ms),
    token,
  }));
}

/** The monitors still held under any of `tokens`, locked in id order without waiting for any. */
const heldBy = (tokens: string[]) => sql`
  SELECT id FROM monitors
  WHERE lease_token IN (SELECT value FROM jsonb_array_elements_text(${JSON.stringify(tokens)}::jsonb))
  ORDER BY id
  FOR UPDATE SKIP LOCKED`;

/** Extends the leases of the claims whose checks are still under way. */
export async function renewLeases(database: Database, tokens: string[], leaseMs: number): Promise<void> {
  if (tokens.length === 0) return;
  await database.rows(sql`
    UPDATE monitors m SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
    FROM (${heldBy(tokens)}) AS held WHERE m.id = held.id`);
}

/**
 * Gives up leases, so the checks can be claimed at once: those of `tokens` (a worker
 * stopping), or all of them (`null`: the embedded server at start, the only worker there is).
 */
export async function releaseLeases(database: Database, tokens: string[] | null): Promise<void> {
  if (tokens === null) {
    await database.rows(sql`
      UPDATE monitors SET lease_token = NULL, lease_until = NULL WHERE lease_token IS NOT NULL`);
    return;
  }
  if (tokens.length === 0) return;
  await database.rows(sql`
    UPDATE monitors m SET lease_token = NULL, lease_until = NULL
    FROM (${heldBy(tokens)}) AS held WHERE m.id = held.id`);
}

/**
 * Puts a check back to wait until `nextMs` (the service's clock): after an outage (`failed`:
 * one more failed attempt, the first dated `nowMs`), or until its key's quota resets. A
 * monitor paused meanwhile stays unscheduled.
 */
export async function postponeCheck(
  database: Database,
  check: ClaimedCheck,
  input: { nextMs: number; nowMs: number; failed: boolean },
): Promise<void> {
  await database.rows(sql`
    UPDATE monitors SET lease_token = NULL, lease_until = NULL,
      next_check_at = CASE WHEN status = 'active' THEN ${at(input.nextMs)} ELSE NULL END,
      attempts = attempts + ${input.failed ? 1 : 0},
      retry_since = CASE WHEN ${input.failed} THEN COALESCE(retry_since, ${at(input.nowMs)}) ELSE retry_since END
    WHERE id = ${check.monitorId} AND lease_token = ${check.token}`);
}

/** Stops checking a monitor whose key is gone or revoked: nobody can read what it would find. */
export async function unschedule(database: Database, check: ClaimedCheck): Promise<void> {
  await database.rows(sql`
    UPDATE monitors SET lease_token = NULL, lease_until = NULL, next_check_at = NULL
    WHERE id = ${check.monitorId} AND lease_token = ${check.token}`);
}

/** A monitor as the transaction finishing its check found it, locked. */
export type HeldMonitor = {
  status: "active" | "paused";
  intervalDays: number;
  dueMs: number;
  answered: boolean;
  lastResult: VatResult | null;
  /** Checks finished before this one. */
  checks: number;
};

/**
 * Locks the monitors of finished checks (in id order, as every writer of several does) and
 * says, per check, the monitor as it stands when it is still held under the token of the
 * claim that did the check — else null: deleted, or claimed again meanwhile. One check per
 * monitor and token stands.
 */
export async function keepClaimed(rows: Rows, checks: ClaimedCheck[]): Promise<(HeldMonitor | null)[]> {
  const ids = [...new Set(checks.map((check) => check.monitorId))].sort();
  const locked = await rows<{
    id: string;
    lease_token: string | null;
    status: "active" | "paused";
    interval_days: number;
    due_ms: number;
    last_checked_at: string | null;
    last_result: string | null;
    checks: number;
  }>(sql`
    SELECT id, lease_token, status, interval_days, (extract(epoch FROM due_at) * 1000)::float8 AS due_ms,
      last_checked_at::text, last_result::text, checks
    FROM monitors WHERE id IN (SELECT value FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
    ORDER BY id FOR UPDATE`);
  const byId = new Map(locked.map((row) => [row.id, row]));
  const taken = new Set<string>();
  return checks.map((check) => {
    const row = byId.get(check.monitorId);
    if (!row || row.lease_token !== check.token || taken.has(check.monitorId)) return null;
    taken.add(check.monitorId);
    return {
      status: row.status,
      intervalDays: row.interval_days,
      dueMs: Number(row.due_ms),
      answered: row.last_checked_at !== null,
      lastResult: row.last_result === null ? null : (JSON.parse(row.last_result) as VatResult),
      checks: row.checks,
    };
  });
}

/** What a finished check writes to its monitor. */
export type CheckWrite = {
  monitorId: string;
  /** The answer to keep: the new one, or the one kept when the new one is older. */
  lastResult: VatResult;
  nowMs: number;
  dueMs: number;
  /** Null while paused. */
  nextCheckMs: number | null;
};

/** Writes finished checks, their monitors released and scheduled for their next round. */
export async function recordChecks(rows: Rows, writes: CheckWrite[]): Promise<void> {
  if (writes.length === 0) return;
  await rows(sql`
    UPDATE monitors m SET last_result = d.last_result, last_checked_at = d.checked_at::timestamptz,
      due_at = d.due_at::timestamptz, next_check_at = d.next_check_at::timestamptz,
      attempts = 0, retry_since = NULL, lease_token = NULL, lease_until = NULL, checks = m.checks + 1
    FROM jsonb_to_recordset(${jsonb(
      writes.map((write) => ({
        id: write.monitorId,
        last_result: write.lastResult,
        checked_at: new Date(write.nowMs).toISOString(),
        due_at: new Date(write.dueMs).toISOString(),
        next_check_at: write.nextCheckMs === null ? null : new Date(write.nextCheckMs).toISOString(),
      })),
    )}::jsonb) AS d(id text, last_result jsonb, checked_at text, due_at text, next_check_at text)
    WHERE m.id = d.id`);
}
