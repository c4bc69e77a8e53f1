import { sql } from "drizzle-orm";
import { Batcher, ItemFailure } from "../kernel/batcher.ts";
import type { Clock } from "../kernel/clock.ts";
import type { Database, Rows } from "../kernel/db.ts";
import { hasRoom } from "./billing.ts";
import type {
  Completion,
  CompletionWork,
  Meter,
  MeterAdmission,
  MeterOptions,
  MeterRequest,
  MeterUsage,
  Reservation,
  Settlement,
} from "./meter.ts";
import { periodAt } from "./period.ts";

type Admission = { request: MeterRequest; month: string; resetMs: number };

type Operation =
  | ({ kind: "reserve" } & Admission)
  | { kind: "settle"; reservation: Reservation; bill: boolean };

type Outcome = MeterAdmission | Settlement;

/** The charges of one key and month in a batch. */
type ChargeGroup = { keyId: string; month: string; requests: number; units: number; quota: number };

/** What a charge statement granted a key and month: units left to hand out, from `next` on; `after` in all. */
type Grant = { next: number; left: number; after: number };

/** One usage row as a batch sees and changes it. */
type Group = {
  keyId: string;
  month: string;
  requests: number;
  used: number;
  reserved: number;
  changed: boolean;
};

const NO_QUOTA = -1;

/**
 * The meter on a database several instances share (Postgres). Every quota decision reads and
 * writes a single locked `usage_months` row (`used` billed units, `reserved` units held), with
 * rows locked in key order in every instance — exact across instances, without deadlocks.
 * Concurrent operations are batched: one statement or transaction carries many requests.
 */
export class SharedMeter implements Meter {
  private readonly charges: Batcher<Admission, MeterAdmission>;
  private readonly operations: Batcher<Operation, Outcome>;
  /** Reservations this instance granted and has not settled, for `close` to release. */
  private readonly open = new Map<number, Reservation>();
  private lastSweepMs = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: MeterOptions,
  ) {
    this.charges = new Batcher((items) => this.commitCharges(items));
    this.operations = new Batcher((items) => this.commitOperations(items));
  }

  async admit(request: MeterRequest): Promise<MeterAdmission> {
    const { month, resetMs } = periodAt(this.clock.now());
    if (!request.reserve) return this.charges.submit({ request, month, resetMs });
    const admission = (await this.operations.submit({
      kind: "reserve",
      request,
      month,
      resetMs,
    })) as MeterAdmission;
    if (admission.ok && admission.reservation) this.open.set(admission.reservation.id, admission.reservation);
    return admission;
  }

  settle(reservation: Reservation, bill: boolean): Promise<Settlement> {
    this.open.delete(reservation.id);
    return this.operations.submit({ kind: "settle", reservation, bill }) as Promise<Settlement>;
  }

  async complete(completions: Completion[], work: CompletionWork): Promise<boolean[]> {
    const current = periodAt(this.clock.now()).month;
    const months = completions.map((completion) => completion.reservation?.month ?? current);
    const held = completions.flatMap(({ reservation }) => (reservation ? [reservation] : []));
    for (const reservation of held) this.open.delete(reservation.id);
    const billed = await withRetry(() =>
      this.database.transaction(async (rows) => {
        const groups = new Map<string, Group>();
        completions.forEach(({ keyId }, index) => {
          const month = months[index] as string;
          const id = `${keyId}|${month}`;
          if (!groups.has(id))
            groups.set(id, { keyId, month, requests: 0, used: 0, reserved: 0, changed: true });
        });
        // The usage rows first, created if missing and locked in key order, as every meter
        // transaction takes them; then what the work locks.
        const locked = await rows<{ key_id: string; month: string; used: number; reserved: number }>(sql`
          INSERT INTO usage_months (key_id, month)
          SELECT d.key_id, d.month::date FROM jsonb_to_recordset(${JSON.stringify(
            [...groups.values()].sort(byKeyAndMonth).map((g) => ({ key_id: g.keyId, month: g.month })),
          )}::jsonb) AS d(key_id text, month text)
          ORDER BY d.key_id, d.month
          ON CONFLICT (key_id, month) DO UPDATE SET requests = usage_months.requests
          RETURNING key_id, to_char(month, 'YYYY-MM-DD') AS month, used, reserved`);
        for (const row of locked) {
          const group = groups.get(`${row.key_id}|${row.month}`);
          if (group) Object.assign(group, { used: row.used, reserved: row.reserved });
        }
        const kept = await work.keep(rows);
        const held = await deleteReservations(
          rows,
          completions.flatMap(({ reservation }) => (reservation ? [reservation.id] : [])),
        );
        const outcome = completions.map((completion, index) => {
          const group = groups.get(`${completion.keyId}|${months[index]}`) as Group;
          const holds = completion.reservation !== null && held.has(completion.reservation.id);
          if (holds) group.reserved -= 1;
          if (!kept[index]) return false;
          group.requests += 1;
          if (!(completion.bill && holds)) return false;
          group.used += 1;
          return true;
        });
        await rows(sql`
          UPDATE usage_months AS u SET used = d.used, reserved = d.reserved, requests = u.requests + d.requests
          FROM jsonb_to_recordset(${JSON.stringify(
            [...groups.values()].map((g) => ({
              key_id: g.keyId,
              month: g.month,
              used: g.used,
              reserved: g.reserved,
              requests: g.requests,
            })),
          )}::jsonb) AS d(key_id text, month text, used int, reserved int, requests int)
          WHERE u.key_id = d.key_id AND u.month = d.month::date`);
        await work.record(rows, outcome);
        return outcome;
      }),
    ).catch(async (error: unknown) => {
      // Nothing of it was written: its units go back now rather than at the end of their lease.
      await Promise.all(held.map((reservation) => this.settle(reservation, false).catch(() => {})));
      throw error;
    });
    this.sweepWhenDue(this.clock.now());
    return billed;
  }

  async close(): Promise<void> {
    await this.idle();
    const left = [...this.open.values()];
    await Promise.all(left.map((reservation) => this.settle(reservation, false)));
  }

  async usage(keyId: string, nowMs: number): Promise<MeterUsage> {
    const { month } = periodAt(nowMs);
    const rows = await this.database.rows<MeterUsage>(
      sql`SELECT used, requests FROM usage_months WHERE key_id = ${keyId} AND month = ${month}::date`,
    );
    return rows[0] ?? { used: 0, requests: 0 };
  }

  async idle(): Promise<void> {
    await Promise.all([this.charges.idle(), this.operations.idle()]);
  }

  /**
   * The common case — requests that count and maybe charge, with no reservation — in one
   * statement per batch (CHARGE_SQL): one round trip, one commit. Units go to the batch's
   * requests in arrival order. A key's first request of a month finds no usage row: the
   * missing rows are created (a commit that bills nothing) and their requests charged by a
   * second statement. Each request is answered from the commit that carried it: when a later
   * step fails, only the requests it was for fail, and nothing was billed for them.
   */
  private async commitCharges(items: Admission[]): Promise<(MeterAdmission | ItemFailure)[]> {
    const groups = new Map<string, ChargeGroup>();
    for (const { request, month } of items) {
      const id = `${request.keyId}|${month}`;
      const group = groups.get(id) ?? {
        keyId: request.keyId,
        month,
        requests: 0,
        units: 0,
        quota: request.quota ?? NO_QUOTA,
      };
      group.requests += 1;
      if (request.charge) group.units += 1;
      groups.set(id, group);
    }
    const granted = new Map<string, Grant>();
    let failure: unknown = null;
    try {
      const all = [...groups.values()].sort(byKeyAndMonth);
      await this.charge(all, granted);
      const missing = all.filter((group) => !granted.has(`${group.keyId}|${group.month}`));
      if (missing.length > 0) {
        await this.database.rows(sql`
          INSERT INTO usage_months (key_id, month)
          SELECT d.key_id, d.month::date FROM jsonb_to_recordset(${JSON.stringify(
            missing.map((g) => ({ key_id: g.keyId, month: g.month })),
          )}::jsonb) AS d(key_id text, month text)
          ORDER BY d.key_id, d.month
          ON CONFLICT (key_id, month) DO NOTHING`);
        await this.charge(missing, granted);
      }
    } catch (error) {
      failure = error;
    }
    this.sweepWhenDue(this.clock.now());
    return items.map(({ request, month, resetMs }) => {
      const group = granted.get(`${request.keyId}|${month}`);
      if (!group)
        return new ItemFailure(failure ?? new Error(`no usage row for ${request.keyId} in ${month}`));
      if (!request.charge) return { ok: true, used: group.after, charged: false, reservation: null, resetMs };
      if (group.left === 0) return { ok: false, used: group.after, resetMs };
      group.left -= 1;
      group.next += 1;
      return { ok: true, used: group.next, charged: true, reservation: null, resetMs };
    });
  }

  /** Runs CHARGE_SQL for `groups` (in key order); records what it granted to each group whose row exists. */
  private async charge(groups: ChargeGroup[], granted: Map<string, Grant>): Promise<void> {
    const rows = await withRetry(() =>
      this.database.prepared<{ key_id: string; month: string; before: number; used: number }>(CHARGE_SQL, [
        groups.map((g) => g.keyId),
        groups.map((g) => g.month),
        groups.map((g) => g.requests),
        groups.map((g) => g.units),
        groups.map((g) => g.quota),
      ]),
    );
    for (const row of rows) {
      granted.set(`${row.key_id}|${row.month}`, {
        next: row.before,
        left: row.used - row.before,
        after: row.used,
      });
    }
  }

  /** Reservations and settlements, in one transaction per batch. */
  private async commitOperations(operations: Operation[]): Promise<Outcome[]> {
    const outcomes = await withRetry(async () => {
      let committing = false;
      try {
        return await this.database.transaction(async (rows) => {
          const results = await this.applyOperations(rows, operations);
          committing = true;
          return results;
        });
      } catch (error) {
        // A connection lost before COMMIT was sent rolled the transaction back: redoing it
        // is safe (the first requests after a Postgres restart meet such connections). Lost
        // during COMMIT, the outcome is unknown, so the batch fails instead.
        if (!committing && CONNECTION_ERRORS.has(errorCode(error))) throw new RetryableError(error);
        throw error;
      }
    });
    this.sweepWhenDue(this.clock.now());
    return outcomes;
  }

  /** Starts a sweep when the last one is SWEEP_EVERY_MS old; a failed one is retried by a later batch. */
  private sweepWhenDue(nowMs: number): void {
    if (nowMs - this.lastSweepMs < SWEEP_EVERY_MS) return;
    this.lastSweepMs = nowMs;
    // In a transaction of its own, locking usage rows in the same order as the batches.
    this.sweepExpired().catch(() => {
      this.lastSweepMs = 0;
    });
  }

  private async applyOperations(rows: Rows, operations: Operation[]): Promise<Outcome[]> {
    const groups = new Map<string, Group>();
    const groupOf = (keyId: string, month: string): Group => {
      const id = `${keyId}|${month}`;
      let group = groups.get(id);
      if (!group) {
        group = { keyId, month, requests: 0, used: 0, reserved: 0, changed: false };
        groups.set(id, group);
      }
      return group;
    };
    for (const operation of operations) {
      if (operation.kind !== "reserve") groupOf(operation.reservation.keyId, operation.reservation.month);
      else if (operation.request.count !== false)
        groupOf(operation.request.keyId, operation.month).requests += 1;
      else groupOf(operation.request.keyId, operation.month);
    }
    const ordered = [...groups.values()].sort(byKeyAndMonth);

    // Creates missing rows, counts the requests and locks every row of the batch, in key order.
    const locked = await rows<{ key_id: string; month: string; used: number; reserved: number }>(sql`
      INSERT INTO usage_months (key_id, month, requests)
      SELECT d.key_id, d.month::date, d.requests
      FROM jsonb_to_recordset(${JSON.stringify(
        ordered.map((g) => ({ key_id: g.keyId, month: g.month, requests: g.requests })),
      )}::jsonb) AS d(key_id text, month text, requests int)
      ORDER BY d.key_id, d.month
      ON CONFLICT (key_id, month) DO UPDATE SET requests = usage_months.requests + EXCLUDED.requests
      RETURNING key_id, to_char(month, 'YYYY-MM-DD') AS month, used, reserved`);
    for (const row of locked) {
      const group = groupOf(row.key_id, row.month);
      group.used = row.used;
      group.reserved = row.reserved;
    }

    const results: Outcome[] = new Array(operations.length);
    const settled = await deleteReservations(
      rows,
      operations.flatMap((operation) => (operation.kind === "settle" ? [operation.reservation.id] : [])),
    );
    operations.forEach((operation, index) => {
      if (operation.kind !== "settle") return;
      const group = groupOf(operation.reservation.keyId, operation.reservation.month);
      const held = settled.has(operation.reservation.id);
      const billed = held && operation.bill;
      if (held) {
        group.reserved -= 1;
        group.changed = true;
      }
      if (billed) group.used += 1;
      results[index] = { used: group.used, billed };
    });

    const holds: { index: number; group: Group }[] = [];
    operations.forEach((operation, index) => {
      if (operation.kind !== "reserve") return;
      const group = groupOf(operation.request.keyId, operation.month);
      const { quota } = operation.request;
      if (!hasRoom(group, quota)) {
        results[index] = { ok: false, used: group.used, resetMs: operation.resetMs };
        return;
      }
      group.reserved += 1;
      group.changed = true;
      holds.push({ index, group });
      results[index] = {
        ok: true,
        used: group.used,
        charged: false,
        reservation: null,
        resetMs: operation.resetMs,
      };
    });

    const changed = ordered.filter((group) => group.changed);
    if (changed.length > 0) {
      // The rows are locked by this transaction, so the values computed here are the truth.
      await rows(sql`
        UPDATE usage_months AS u SET used = d.used, reserved = d.reserved
        FROM jsonb_to_recordset(${JSON.stringify(
          changed.map((g) => ({ key_id: g.keyId, month: g.month, used: g.used, reserved: g.reserved })),
        )}::jsonb) AS d(key_id text, month text, used int, reserved int)
        WHERE u.key_id = d.key_id AND u.month = d.month::date`);
    }
    if (holds.length > 0) await this.insertReservations(rows, holds, results);
    return results;
  }

  private async insertReservations(
    rows: Rows,
    holds: { index: number; group: Group }[],
    results: Outcome[],
  ): Promise<void> {
    const inserted = await rows<{ id: string | number; key_id: string; month: string }>(sql`
      INSERT INTO reservations (key_id, month, expires_at)
      SELECT d.key_id, d.month::date, now() + ${this.options.reservationTtlMs} * interval '1 millisecond'
      FROM jsonb_to_recordset(${JSON.stringify(
        holds.map((h) => ({ key_id: h.group.keyId, month: h.group.month })),
      )}::jsonb) AS d(key_id text, month text)
      RETURNING id, key_id, to_char(month, 'YYYY-MM-DD') AS month`);
    // Reservations of one key and month are interchangeable, so ids are matched by group.
    const idsByGroup = new Map<string, number[]>();
    for (const row of inserted) {
      const id = `${row.key_id}|${row.month}`;
      idsByGroup.set(id, [...(idsByGroup.get(id) ?? []), Number(row.id)]);
    }
    for (const { index, group } of holds) {
      const id = idsByGroup.get(`${group.keyId}|${group.month}`)?.shift();
      const result = results[index];
      if (id === undefined || !result || !("ok" in result) || !result.ok) {
        throw new Error("a reservation insert returned fewer rows than requested");
      }
      result.reservation = { id, keyId: group.keyId, month: group.month };
    }
  }

  /**
   * Releases reservations whose instance died before settling them, in every instance's rows.
   * Leases are written and judged on the database's clock (`now()`, the transaction's start),
   * so an instance whose own clock runs ahead cannot sweep the live reservations of others.
   */
  async sweepExpired(): Promise<void> {
    await withRetry(() =>
      this.database.transaction(async (rows) => {
        const due = await rows<{ key_id: string; month: string }>(sql`
          SELECT DISTINCT key_id, to_char(month, 'YYYY-MM-DD') AS month
          FROM reservations WHERE expires_at <= now()`);
        if (due.length === 0) return;
        const groups = JSON.stringify(
          due
            .map((row) => ({ keyId: row.key_id, month: row.month }))
            .sort(byKeyAndMonth)
            .map((g) => ({ key_id: g.keyId, month: g.month })),
        );
        // The usage rows first, in key order, as every batch locks them: a sweep and a batch
        // never hold each other's locks.
        await rows(sql`
          SELECT 1 FROM usage_months u
          JOIN jsonb_to_recordset(${groups}::jsonb) AS d(key_id text, month text)
            ON u.key_id = d.key_id AND u.month = d.month::date
          ORDER BY u.key_id, u.month
          FOR UPDATE OF u`);
        // Reservations settled meanwhile are gone, so only what is deleted here is released.
        await rows(sql`
          WITH gone AS (
            DELETE FROM reservations r
            USING jsonb_to_recordset(${groups}::jsonb) AS d(key_id text, month text)
            WHERE r.key_id = d.key_id AND r.month = d.month::date AND r.expires_at <= now()
            RETURNING r.key_id, r.month
          ), released AS (
            SELECT key_id, month, count(*)::int AS n FROM gone GROUP BY 1, 2
          )
          UPDATE usage_months AS u SET reserved = GREATEST(0, u.reserved - released.n)
          FROM released
          WHERE u.key_id = released.key_id AND u.month = released.month`);
      }),
    );
  }
}

/** Deletes reservations being settled; returns the ids that still existed (still held a unit). */
async function deleteReservations(rows: Rows, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const deleted = await rows<{ id: string | number }>(sql`
    DELETE FROM reservations
    WHERE id IN (SELECT value::bigint FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
    RETURNING id`);
  return new Set(deleted.map((row) => Number(row.id)));
}

/** How often expired reservations are looked for. */
const SWEEP_EVERY_MS = 10_000;

/**
 * Charges a batch: $1..$5 are parallel arrays (key, month, requests, units, quota; −1 for
 * no quota). The CTE locks the batch's usage rows in key order — a row locked after a wait
 * is read in its newest version — and the update grants min(units, quota − used − reserved)
 * against those values, returning `used` before and after.
 */
const CHARGE_SQL = `
  WITH d AS (
    -- Months travel as text: the Drizzle-configured client passes date values through as given.
    SELECT key_id, month::date AS month, requests, units, quota
    FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[]) AS d(key_id, month, requests, units, quota)
  ), locked AS (
    SELECT u.key_id, u.month, u.used AS before, u.reserved
    FROM usage_months u JOIN d ON u.key_id = d.key_id AND u.month = d.month
    ORDER BY u.key_id, u.month
    FOR UPDATE OF u
  )
  UPDATE usage_months AS u SET
    requests = u.requests + d.requests,
    used = u.used + CASE WHEN d.quota < 0 THEN d.units
      ELSE LEAST(d.units, GREATEST(0, d.quota - locked.before - locked.reserved)) END
  FROM d, locked
  WHERE u.key_id = d.key_id AND u.month = d.month AND locked.key_id = u.key_id AND locked.month = u.month
  RETURNING u.key_id, to_char(u.month, 'YYYY-MM-DD') AS month, locked.before, u.used`;

/** Errors of a connection rather than of a statement: the server went away or restarted. */
const CONNECTION_ERRORS = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "ECONNRESET",
  "EPIPE",
  "57P01",
  "57P02",
  "57P03",
]);

/** The SQLSTATE or driver code of an error; Drizzle keeps the driver's error as `cause`. */
function errorCode(error: unknown): string {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return String(code ?? cause?.code);
}

/** Marks a failure that is safe to redo, whatever its code. */
class RetryableError extends Error {
  constructor(readonly original: unknown) {
    super("retryable");
  }
}

/**
 * Redoes `work` when Postgres aborted it for a deadlock or a serialization failure (lock
 * order makes those unlikely, not impossible: a foreign session), or when `work` says the
 * failure is safe to redo — at most three attempts.
 */
async function withRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const retryable = error instanceof RetryableError || ["40P01", "40001"].includes(errorCode(error));
      const original = error instanceof RetryableError ? error.original : error;
      if (attempt >= 3 || !retryable) throw original;
    }
  }
}

function byKeyAndMonth(a: { keyId: string; month: string }, b: { keyId: string; month: string }): number {
  if (a.keyId !== b.keyId) return a.keyId < b.keyId ? -1 : 1;
  return a.month < b.month ? -1 : a.month > b.month ? 1 : 0;
}
