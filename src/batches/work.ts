import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { allDue, dueUnits, markDue, settleUnits } from "../background/due-units.ts";
import { FairShare } from "../background/fair-share.ts";
import { pickWithinCap } from "../background/target-cap.ts";
import type { IbanResult } from "../iban/schema.ts";
import { type Database, jsonb, type Rows } from "../kernel/db.ts";
import type { ApiErrorBody } from "../kernel/errors.ts";
import type { MatchRequest } from "../matching/schema.ts";
import type { VatResult } from "../vat/schema.ts";
import { BATCH_ITEMS, claimableItems, dueItems } from "./due.ts";
import type { Batch } from "./schema.ts";
import { findBatch, storedVatResult } from "./store.ts";

/**
 * The claims of batch items by workers, in the database so that several instances share the
 * work and an instance that dies leaves nothing behind: each claim leases its items under a
 * token of its own; the transaction that finishes an item checks that the item is still
 * pending and under the token of the claim that worked on it (`keepClaimed`), so an item whose
 * lease ran out and was claimed again — by another instance or by this one — or that was
 * cancelled meanwhile, is finished, and billed, once.
 */

/** An item a worker holds: what to validate, and where it stands. */
export type ClaimedItem = {
  batchId: string;
  index: number;
  keyId: string;
  vat: string | null;
  /** The member state (VAT prefix) whose authority the item may wait for; null when none. */
  prefix: string | null;
  iban: string | null;
  /** The details to match against the VAT number's record, or null. */
  match: MatchRequest | null;
  /**
   * A repeat's first item (the batch's first with the same VAT number and `match`), finished:
   * its VAT answer, or the error it failed with before it had one. Null for any other item.
   */
  first: FirstAnswer | null;
  /** Attempts so far, this one included. */
  attempts: number;
  /** When retries stop (set at the first upstream failure), and the database's time of the claim. */
  retryUntilMs: number | null;
  claimedAtMs: number;
  /** The claim's token: the item is this claim's while it is pending under it. */
  token: string;
};

/** What a repeat's first item came to: its VAT answer, or its failure before it had one. */
export type FirstAnswer = { vat: VatResult } | { vat: null; error: ApiErrorBody };

/**
 * Prepares this instance's claims: every active batch has its row in `work_due` (batches from
 * before it existed get theirs here), and the sole worker of an embedded database drops the
 * leases a crash left and makes every batch due now.
 */
export async function prepareClaims(database: Database, soleWorker: boolean): Promise<void> {
  await database.rows(sql`
    INSERT INTO work_due (queue, unit, key_id, due_at)
    SELECT ${BATCH_ITEMS.name}, id, key_id, now() FROM batches WHERE status IN ('queued', 'running')
    ON CONFLICT (queue, unit) DO NOTHING`);
  if (!soleWorker) return;
  await database.rows(sql`
    UPDATE batch_items SET lease_token = NULL, lease_until = NULL, next_attempt_at = now()
    WHERE status = 'pending' AND lease_token IS NOT NULL`);
  await allDue(database, BATCH_ITEMS);
}

/** The slots of a claim that holds no member state back (for callers outside a worker). */
const ANY_TARGET = new FairShare(1);

/** A batch with items due, and how many of them a claim could take. */
export type DueBatch = { id: string; keyId: string; due: number };

/**
 * The batches with items due, one per key (its earliest due), the keys in turn from after
 * `afterKey`, with how many of their items due a worker holding `slots` could take, at most
 * `limit`, of what a claim reads of them (`dueItems`; none of a member state at its cap);
 * batches whose items all wait are not looked at.
 */
export async function dueBatches(
  database: Database,
  afterKey: string,
  limit: number,
  slots: FairShare = ANY_TARGET,
): Promise<DueBatch[]> {
  return (await dueUnits(database, claimableItems(slots), afterKey, limit)).map(({ unit, keyId, due }) => ({
    id: unit,
    keyId,
    due,
  }));
}

/**
 * Leases, of each wanted batch, up to `take` of its due items (earliest due first, then in
 * input order) for `leaseMs` under a new token, in one statement; items leased by another claim
 * are skipped, not waited for. With `within`, of what a claim reads of each batch (`dueItems`:
 * its first `window` items due, and each member state's first up to its room), those of a state
 * are taken only up to the room `slots` has left for it, the keys holding least of it first: the
 * others wait, unclaimed, for the state's items in flight to finish. A batch's take goes first
 * to its states its key holds least of, so a batch sorted by state has its states worked at
 * once, not one after another. A leased
 * item is next due when its lease runs out. Batches that had fewer due items than wanted, and
 * the `idle` ones (found due with nothing to claim), are settled (their next due time is their
 * earliest item's); those that were queued become running.
 */
export async function claimItems(
  database: Database,
  wanted: { id: string; keyId: string; take: number }[],
  leaseMs: number,
  idle: string[] = [],
  within: { slots: FairShare; window: number } = { slots: ANY_TARGET, window: 0 },
): Promise<ClaimedItem[]> {
  if (wanted.length === 0) {
    await settleUnits(database, BATCH_ITEMS, idle);
    return [];
  }
  const token = `c_${randomBytes(9).toString("hex")}`;
  const rows = await database.rows<{
    batch_id: string;
    idx: number;
    vat: string | null;
    vat_prefix: string | null;
    iban: string | null;
    match: string | null;
    first_vat: string | null;
    first_error: string | null;
    attempts: number;
    retry_until_ms: number | null;
    now_ms: number;
  }>(sql`
    WITH wanted AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(wanted.map(({ id, keyId, take }) => ({ id, key: keyId, take })))}::jsonb)
        AS w(id text, key text, take int)
    ), candidates AS (
      SELECT d.batch_id AS unit, w.key, d.idx::text AS item, d.target,
        row_number() OVER (PARTITION BY d.batch_id ORDER BY d.next_attempt_at, d.idx) AS pos
      FROM wanted w CROSS JOIN LATERAL (
        ${dueItems(sql`GREATEST(w.take, ${within.window})`, sql`w.id`, within.slots, sql`FOR UPDATE SKIP LOCKED`)}) d
    ), picked AS (
      ${pickWithinCap(sql`SELECT * FROM candidates`, sql`SELECT id AS unit, take FROM wanted`, within.slots, true)}
    )
    UPDATE batch_items i SET lease_token = ${token},
      lease_until = now() + ${leaseMs} * interval '1 millisecond',
      next_attempt_at = now() + ${leaseMs} * interval '1 millisecond', attempts = i.attempts + 1
    FROM picked p WHERE i.batch_id = p.unit AND i.idx = p.item::int
    RETURNING i.batch_id, i.idx, i.vat, i.vat_prefix, i.iban, i.match::text AS match,
      (SELECT f.vat_result::text FROM batch_items f WHERE f.batch_id = i.batch_id AND f.idx = i.repeat_of) AS first_vat,
      (SELECT f.error::text FROM batch_items f WHERE f.batch_id = i.batch_id AND f.idx = i.repeat_of) AS first_error,
      i.attempts,
      (extract(epoch FROM i.retry_until) * 1000)::float8 AS retry_until_ms,
      (extract(epoch FROM now()) * 1000)::float8 AS now_ms`);
  const claimed = new Map<string, number>();
  for (const row of rows) claimed.set(row.batch_id, (claimed.get(row.batch_id) ?? 0) + 1);
  await settleUnits(database, BATCH_ITEMS, [
    ...idle,
    ...wanted.filter(({ id, take }) => (claimed.get(id) ?? 0) < take).map(({ id }) => id),
  ]);
  if (claimed.size > 0) {
    await database.rows(sql`
      UPDATE batches SET status = 'running'
      WHERE id IN (SELECT value FROM jsonb_array_elements_text(${JSON.stringify([...claimed.keys()])}::jsonb))
        AND status = 'queued'`);
  }
  const keyOf = new Map(wanted.map(({ id, keyId }) => [id, keyId]));
  return rows
    .map((row) => ({
      batchId: row.batch_id,
      index: row.idx,
      keyId: keyOf.get(row.batch_id) as string,
      vat: row.vat,
      prefix: row.vat_prefix,
      iban: row.iban,
      match: row.match === null ? null : (JSON.parse(row.match) as MatchRequest),
      first: firstAnswerOf(row.first_vat, row.first_error),
      attempts: row.attempts,
      retryUntilMs: row.retry_until_ms === null ? null : Number(row.retry_until_ms),
      claimedAtMs: Number(row.now_ms),
      token,
    }))
    .sort((a, b) => (a.batchId === b.batchId ? a.index - b.index : a.batchId < b.batchId ? -1 : 1));
}

/** A repeat's first item's answer from its columns; null for an item that is no repeat. */
function firstAnswerOf(vat: string | null, error: string | null): FirstAnswer | null {
  if (vat !== null) return { vat: storedVatResult(vat) };
  return error === null ? null : { vat: null, error: JSON.parse(error) as ApiErrorBody };
}

/** The items still pending under any of `tokens`, locked in key order without waiting for any. */
const leasedBy = (tokens: string[]) => sql`
  SELECT batch_id, idx FROM batch_items
  WHERE status = 'pending' AND lease_token IN (SELECT value FROM jsonb_array_elements_text(${JSON.stringify(tokens)}::jsonb))
  ORDER BY batch_id, idx
  FOR UPDATE SKIP LOCKED`;

/**
 * Extends the leases of the claims whose items are still worked on. An item being finished
 * right now is locked, and skipped: its lease no longer matters.
 */
export async function renewLeases(database: Database, tokens: string[], leaseMs: number): Promise<void> {
  if (tokens.length === 0) return;
  await database.rows(sql`
    UPDATE batch_items i SET lease_until = now() + ${leaseMs} * interval '1 millisecond',
      next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
    FROM (${leasedBy(tokens)}) AS held WHERE i.batch_id = held.batch_id AND i.idx = held.idx`);
}

/** Gives up the leases of `tokens` (a worker stopping), so the items can be claimed at once. */
export async function releaseLeases(database: Database, tokens: string[]): Promise<void> {
  if (tokens.length === 0) return;
  await database.rows(sql`
    WITH released AS (
      UPDATE batch_items i SET lease_token = NULL, lease_until = NULL, next_attempt_at = now()
      FROM (${leasedBy(tokens)}) AS held WHERE i.batch_id = held.batch_id AND i.idx = held.idx
      RETURNING i.batch_id
    )
    UPDATE work_due SET due_at = now(), marks = marks + 1
    WHERE queue = ${BATCH_ITEMS.name} AND unit IN (SELECT batch_id FROM released)`);
}

/**
 * Puts an item back to wait for its next attempt, `delayMs` from now; its retries end
 * `windowSeconds` after its first failure.
 */
export async function rescheduleItem(
  database: Database,
  item: ClaimedItem,
  delayMs: number,
  windowSeconds: number,
): Promise<void> {
  const at = sql`now() + ${Math.round(delayMs)} * interval '1 millisecond'`;
  await database.rows(sql`
    WITH due AS (${markDue(BATCH_ITEMS, item.batchId, item.keyId, at)})
    UPDATE batch_items SET lease_token = NULL, lease_until = NULL, next_attempt_at = ${at},
      retry_until = COALESCE(retry_until, now() + ${windowSeconds} * interval '1 second')
    WHERE batch_id = ${item.batchId} AND idx = ${item.index} AND status = 'pending' AND lease_token = ${item.token}`);
}

/** What came of an item, to be written when it is finished. */
export type ItemOutcome = {
  item: ClaimedItem;
  status: "done" | "failed";
  vat: VatResult | null;
  iban: IbanResult | null;
  error: ApiErrorBody | null;
  /** Answered items only: every answered component valid (else some component is not). */
  valid: boolean;
};

/**
 * Locks the batches, then the items, of finished outcomes (the order in which cancelling
 * locks them) and says which items are still pending under the token of the claim that
 * worked on them — for one item, at most one outcome.
 */
export async function keepClaimed(rows: Rows, outcomes: ItemOutcome[]): Promise<boolean[]> {
  const batchIds = [...new Set(outcomes.map(({ item }) => item.batchId))].sort();
  await rows(sql`
    SELECT id FROM batches
    WHERE id IN (SELECT value FROM jsonb_array_elements_text(${JSON.stringify(batchIds)}::jsonb))
    ORDER BY id FOR UPDATE`);
  const held = await rows<{ batch_id: string; idx: number; lease_token: string }>(sql`
    SELECT i.batch_id, i.idx, i.lease_token FROM batch_items i
    JOIN (SELECT DISTINCT batch_id, idx FROM jsonb_to_recordset(${JSON.stringify(
      outcomes.map(({ item }) => ({ batch_id: item.batchId, idx: item.index })),
    )}::jsonb) AS d(batch_id text, idx int)) AS d ON i.batch_id = d.batch_id AND i.idx = d.idx
    WHERE i.status = 'pending'
    ORDER BY i.batch_id, i.idx
    FOR UPDATE OF i`);
  const kept = new Set(held.map((row) => `${row.batch_id}|${row.idx}|${row.lease_token}`));
  return outcomes.map(({ item }) => kept.delete(`${item.batchId}|${item.index}|${item.token}`));
}

/**
 * Writes finished items and their batches' counts; marks the batches whose last item this
 * was `completed`, and returns them (with their keys).
 */
export async function recordFinished(
  rows: Rows,
  outcomes: ItemOutcome[],
  billed: boolean[],
): Promise<{ batch: Batch; keyId: string }[]> {
  if (outcomes.length === 0) return [];
  await rows(sql`
    UPDATE batch_items i SET status = d.status, vat_result = d.vat, iban_result = d.iban,
      billable = d.billable, error = d.error, completed_at = now(), lease_token = NULL, lease_until = NULL
    FROM jsonb_to_recordset(${jsonb(
      outcomes.map((outcome, index) => ({
        batch_id: outcome.item.batchId,
        idx: outcome.item.index,
        status: outcome.status,
        vat: outcome.vat,
        iban: outcome.iban,
        billable: billed[index] ?? false,
        error: outcome.error,
      })),
    )}::jsonb) AS d(batch_id text, idx int, status text, vat jsonb, iban jsonb, billable boolean, error jsonb)
    WHERE i.batch_id = d.batch_id AND i.idx = d.idx`);
  // Their repeats, which waited for them, are due now; their batches with them.
  await rows(sql`
    WITH released AS (
      UPDATE batch_items r SET next_attempt_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(
        outcomes.map(({ item }) => ({ batch_id: item.batchId, idx: item.index })),
      )}::jsonb) AS d(batch_id text, idx int)
      WHERE r.batch_id = d.batch_id AND r.repeat_of = d.idx AND r.status = 'pending'
      RETURNING r.batch_id
    )
    UPDATE work_due SET due_at = now(), marks = marks + 1
    WHERE queue = ${BATCH_ITEMS.name} AND unit IN (SELECT batch_id FROM released)`);
  const counts = new Map<
    string,
    { id: string; done: number; valid: number; invalid: number; failed: number; billed: number }
  >();
  outcomes.forEach((outcome, index) => {
    const id = outcome.item.batchId;
    const count = counts.get(id) ?? { id, done: 0, valid: 0, invalid: 0, failed: 0, billed: 0 };
    if (outcome.status === "failed") count.failed += 1;
    else {
      count.done += 1;
      if (outcome.valid) count.valid += 1;
      else count.invalid += 1;
    }
    if (billed[index]) count.billed += 1;
    counts.set(id, count);
  });
  await rows(sql`
    UPDATE batches b SET done = b.done + d.done, valid = b.valid + d.valid, invalid = b.invalid + d.invalid,
      failed = b.failed + d.failed, billed = b.billed + d.billed
    FROM jsonb_to_recordset(${JSON.stringify([...counts.values()])}::jsonb)
      AS d(id text, done int, valid int, invalid int, failed int, billed int)
    WHERE b.id = d.id`);
  const completed = await rows<{ id: string; key_id: string }>(sql`
    UPDATE batches SET status = 'completed', completed_at = now()
    WHERE id IN (SELECT value FROM jsonb_array_elements_text(${JSON.stringify([...counts.keys()])}::jsonb))
      AND status IN ('queued', 'running') AND done + failed >= total
    RETURNING id, key_id`);
  const finished: { batch: Batch; keyId: string }[] = [];
  for (const row of completed) {
    finished.push({ batch: (await findBatch(rows, row.key_id, row.id)) as Batch, keyId: row.key_id });
  }
  return finished;
}
