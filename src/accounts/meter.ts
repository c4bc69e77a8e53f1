import { type SQL, sql } from "drizzle-orm";
import { GroupCommit } from "../batch.ts";
import type { Clock } from "../clock.ts";
import type { Database } from "../db.ts";
import { periodAt } from "./period.ts";

/** What one validate request asks of the meter when it is admitted. */
export type MeterRequest = {
  keyId: string;
  /** Effective monthly quota of the key; null when the plan has none. */
  quota: number | null;
  /** Bill one unit now: the request already produced a fresh definitive result. */
  charge: boolean;
  /** Hold one unit for fresh work that is about to start; settle it afterwards. */
  reserve: boolean;
};

export type Reservation = { id: number; keyId: string; month: string };

export type MeterAdmission =
  | { ok: true; used: number; charged: boolean; reservation: Reservation | null; resetMs: number }
  | { ok: false; used: number; resetMs: number };

export type MeterUsage = { used: number; requests: number };

type Operation =
  | { kind: "admit"; request: MeterRequest; month: string; resetMs: number }
  | { kind: "settle"; reservation: Reservation; bill: boolean };

type Outcome = MeterAdmission | { used: number; billed: boolean };

/** An admission that needs no reservation: it counts a request and maybe charges a unit. */
type Charge = { request: MeterRequest; month: string; resetMs: number };

/**
 * The usage meter: admission against the monthly quota, reservations for fresh work, and
 * settlement. Every operation is durable in Postgres (or PGlite) before its promise
 * resolves, and concurrent operations are group-committed: one transaction carries many
 * requests. Exactness across instances comes from row locks on the usage rows, taken in
 * key order inside that transaction. See docs/decisions.md, "Exact billing".
 */
export class Meter {
  private readonly commits: GroupCommit<Operation, Outcome>;
  private readonly charges: GroupCommit<Charge, MeterAdmission>;
  private lastSweepMs = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: {
      reservationTtlMs: number;
      sweepEveryMs?: number;
      /** Batches of charges committed at the same time; each waits for its own commit. */
      parallelCommits?: number;
    },
  ) {
    this.commits = new GroupCommit((operations) => this.commit(operations));
    this.charges = new GroupCommit((items) => this.commitCharges(items), 512, options.parallelCommits ?? 1);
  }

  /**
   * Counts one validate request and, when asked, bills or reserves one unit — refused when
   * the quota has no unit left. Resolves once the transaction that carries it committed.
   */
  async admit(request: MeterRequest): Promise<MeterAdmission> {
    const period = periodAt(this.clock.now());
    if (!request.reserve)
      return this.charges.submit({ request, month: period.month, resetMs: period.resetMs });
    return (await this.commits.submit({
      kind: "admit",
      request,
      month: period.month,
      resetMs: period.resetMs,
    })) as MeterAdmission;
  }

  /**
   * Turns a reservation into a billed unit (`bill`) or releases it. A reservation that
   * outlived its lease was already released to other requests and is never billed.
   */
  async settle(reservation: Reservation, bill: boolean): Promise<{ used: number; billed: boolean }> {
    return (await this.commits.submit({ kind: "settle", reservation, bill })) as {
      used: number;
      billed: boolean;
    };
  }

  /** Usage of one key in the period containing `nowMs`, without counting a request. */
  async usage(keyId: string, nowMs: number): Promise<MeterUsage> {
    const { month } = periodAt(nowMs);
    const rows = await this.database.rows<{ used: number; requests: number }>(
      sql`SELECT used, requests FROM usage_months WHERE key_id = ${keyId} AND month = ${month}::date`,
    );
    return rows[0] ?? { used: 0, requests: 0 };
  }

  /** Resolves when every submitted operation has committed or failed. */
  async idle(): Promise<void> {
    await Promise.all([this.commits.idle(), this.charges.idle()]);
  }

  /**
   * The common case — requests that count and maybe charge, with no reservation — in one
   * statement per batch: it locks the batch's usage rows in key order, grants each key
   * `min(charges, quota − used − live reservations)` units against the locked values, and
   * returns the usage before and after. One round trip, one commit, exact across instances.
   */
  private async commitCharges(items: Charge[]): Promise<MeterAdmission[]> {
    const nowMs = this.clock.now();
    const groups = new Map<
      string,
      { keyId: string; month: string; requests: number; units: number; quota: number | null }
    >();
    for (const { request, month } of items) {
      const id = `${request.keyId}|${month}`;
      const group = groups.get(id) ?? {
        keyId: request.keyId,
        month,
        requests: 0,
        units: 0,
        quota: request.quota,
      };
      group.requests += 1;
      if (request.charge) group.units += 1;
      groups.set(id, group);
    }
    let ordered = [...groups.values()].sort(byKeyAndMonth);
    const results = new Map<string, { before: number; after: number }>();
    for (let attempt = 1; ordered.length > 0; attempt++) {
      const rows = await this.withRetry(() => this.chargeStatement(ordered, nowMs));
      for (const row of rows)
        results.set(`${row.key_id}|${row.month}`, { before: row.before, after: row.used });
      // A key's first request of a month finds no usage row: create the rows, then charge again.
      ordered = ordered.filter((group) => !results.has(`${group.keyId}|${group.month}`));
      if (ordered.length === 0) break;
      if (attempt > 2) throw new Error("usage rows could not be created");
      await this.database.rows(sql`
        INSERT INTO usage_months (key_id, month)
        SELECT d.key_id, d.month::date FROM jsonb_to_recordset(${JSON.stringify(
          ordered.map((g) => ({ key_id: g.keyId, month: g.month })),
        )}::jsonb) AS d(key_id text, month text)
        ORDER BY d.key_id, d.month
        ON CONFLICT (key_id, month) DO NOTHING`);
    }
    const granted = new Map<string, { next: number; left: number; after: number }>();
    for (const [id, { before, after }] of results)
      granted.set(id, { next: before, left: after - before, after });
    return items.map(({ request, month, resetMs }) => {
      const group = granted.get(`${request.keyId}|${month}`) as { next: number; left: number; after: number };
      if (!request.charge) return { ok: true, used: group.after, charged: false, reservation: null, resetMs };
      // Units go to the batch's requests in arrival order.
      if (group.left === 0) return { ok: false, used: group.after, resetMs };
      group.left -= 1;
      group.next += 1;
      return { ok: true, used: group.next, charged: true, reservation: null, resetMs };
    });
  }

  private chargeStatement(
    groups: { keyId: string; month: string; requests: number; units: number; quota: number | null }[],
    nowMs: number,
  ) {
    return this.database.rows<{ key_id: string; month: string; before: number; used: number }>(sql`
      WITH d AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(
          groups.map((g) => ({
            key_id: g.keyId,
            month: g.month,
            requests: g.requests,
            units: g.units,
            quota: g.quota,
          })),
        )}::jsonb) AS d(key_id text, month text, requests int, units int, quota int)
      ), locked AS (
        SELECT u.key_id, u.month, u.used AS before,
          (SELECT count(*)::int FROM reservations r
            WHERE r.key_id = u.key_id AND r.month = u.month
              AND r.expires_at > ${new Date(nowMs).toISOString()}::timestamptz) AS held
        FROM usage_months u JOIN d ON u.key_id = d.key_id AND u.month = d.month::date
        ORDER BY u.key_id, u.month
        FOR UPDATE OF u
      )
      UPDATE usage_months AS u SET
        requests = u.requests + d.requests,
        used = u.used + CASE WHEN d.quota IS NULL THEN d.units
          ELSE LEAST(d.units, GREATEST(0, d.quota - locked.before - locked.held)) END
      FROM d, locked
      WHERE u.key_id = d.key_id AND u.month = d.month::date AND locked.key_id = u.key_id AND locked.month = u.month
      RETURNING u.key_id, to_char(u.month, 'YYYY-MM-DD') AS month, locked.before, u.used`);
  }

  private async withRetry<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        // Lock order makes deadlocks unlikely, not impossible (a sweep, a foreign session):
        // Postgres aborts one side, and redoing the statement is always correct.
        if (attempt >= 3 || !isRetryable(error)) throw error;
      }
    }
  }

  private async commit(operations: Operation[]): Promise<Outcome[]> {
    const nowMs = this.clock.now();
    const sweep = nowMs - this.lastSweepMs >= (this.options.sweepEveryMs ?? 60_000);
    const outcomes = await this.withRetry(() =>
      this.database.transaction((rows) => this.apply(rows, operations, nowMs, sweep)),
    );
    if (sweep) this.lastSweepMs = nowMs;
    return outcomes;
  }

  private async apply(
    rows: Rows,
    operations: Operation[],
    nowMs: number,
    sweep: boolean,
  ): Promise<Outcome[]> {
    const now = new Date(nowMs).toISOString();
    const groups = new Map<string, Group>();
    const groupOf = (keyId: string, month: string): Group => {
      const id = `${keyId}|${month}`;
      let group = groups.get(id);
      if (!group) {
        group = { keyId, month, requests: 0, used: 0, held: 0, usedDelta: 0 };
        groups.set(id, group);
      }
      return group;
    };
    for (const operation of operations) {
      if (operation.kind === "admit") groupOf(operation.request.keyId, operation.month).requests += 1;
      else groupOf(operation.reservation.keyId, operation.reservation.month);
    }
    const ordered = [...groups.values()].sort(byKeyAndMonth);

    // One statement creates missing usage rows, counts the requests and locks every row this
    // batch touches, in key order — the same order in every instance, so concurrent batches
    // queue behind each other instead of deadlocking.
    const locked = await rows<{ key_id: string; month: string; used: number; held: number }>(sql`
      INSERT INTO usage_months (key_id, month, used, requests)
      SELECT d.key_id, d.month::date, 0, d.requests
      FROM jsonb_to_recordset(${JSON.stringify(
        ordered.map((g) => ({ key_id: g.keyId, month: g.month, requests: g.requests })),
      )}::jsonb) AS d(key_id text, month text, requests int)
      ORDER BY d.key_id, d.month
      ON CONFLICT (key_id, month) DO UPDATE SET requests = usage_months.requests + EXCLUDED.requests
      RETURNING key_id, to_char(month, 'YYYY-MM-DD') AS month, used,
        (SELECT count(*)::int FROM reservations r
          WHERE r.key_id = usage_months.key_id AND r.month = usage_months.month
            AND r.expires_at > ${now}::timestamptz) AS held`);
    for (const row of locked) {
      const group = groupOf(row.key_id, row.month);
      group.used = row.used;
      group.held = row.held;
    }

    const results: Outcome[] = new Array(operations.length);
    const live = await this.releaseSettled(rows, operations, now);
    operations.forEach((operation, index) => {
      if (operation.kind !== "settle") return;
      const { reservation, bill } = operation;
      const group = groupOf(reservation.keyId, reservation.month);
      const wasLive = live.has(reservation.id);
      if (wasLive) group.held -= 1;
      const billed = bill && wasLive;
      if (billed) {
        group.used += 1;
        group.usedDelta += 1;
      }
      results[index] = { used: group.used, billed };
    });

    const holds: { index: number; group: Group }[] = [];
    operations.forEach((operation, index) => {
      if (operation.kind !== "admit") return;
      const { request, resetMs } = operation;
      const group = groupOf(request.keyId, operation.month);
      const wantsUnit = request.charge || request.reserve;
      const hasRoom = request.quota === null || group.used + group.held < request.quota;
      if (wantsUnit && !hasRoom) {
        results[index] = { ok: false, used: group.used, resetMs };
        return;
      }
      if (request.reserve) {
        group.held += 1;
        holds.push({ index, group });
      } else if (request.charge) {
        group.used += 1;
        group.usedDelta += 1;
      }
      results[index] = {
        ok: true,
        used: group.used,
        charged: request.charge && !request.reserve,
        reservation: null,
        resetMs,
      };
    });

    const changed = ordered.filter((group) => group.usedDelta > 0);
    if (changed.length > 0) {
      await rows(sql`
        UPDATE usage_months AS u SET used = u.used + d.units
        FROM jsonb_to_recordset(${JSON.stringify(
          changed.map((g) => ({ key_id: g.keyId, month: g.month, units: g.usedDelta })),
        )}::jsonb) AS d(key_id text, month text, units int)
        WHERE u.key_id = d.key_id AND u.month = d.month::date`);
    }
    if (holds.length > 0) await this.insertReservations(rows, holds, results, nowMs);
    if (sweep) await rows(sql`DELETE FROM reservations WHERE expires_at <= ${now}::timestamptz`);
    return results;
  }

  /** Deletes the settled reservations; returns the ids that were still within their lease. */
  private async releaseSettled(rows: Rows, operations: Operation[], now: string): Promise<Set<number>> {
    const ids = operations.flatMap((operation) =>
      operation.kind === "settle" ? [operation.reservation.id] : [],
    );
    if (ids.length === 0) return new Set();
    const deleted = await rows<{ id: string | number; live: boolean }>(sql`
      DELETE FROM reservations
      WHERE id IN (SELECT value::bigint FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))
      RETURNING id, expires_at > ${now}::timestamptz AS live`);
    return new Set(deleted.filter((row) => row.live).map((row) => Number(row.id)));
  }

  private async insertReservations(
    rows: Rows,
    holds: { index: number; group: Group }[],
    results: Outcome[],
    nowMs: number,
  ): Promise<void> {
    const expiresAt = new Date(nowMs + this.options.reservationTtlMs).toISOString();
    const inserted = await rows<{ id: string | number; key_id: string; month: string }>(sql`
      INSERT INTO reservations (key_id, month, expires_at)
      SELECT d.key_id, d.month::date, ${expiresAt}::timestamptz
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
}

type Rows = <R>(query: SQL) => Promise<R[]>;

type Group = {
  keyId: string;
  month: string;
  /** Validate requests counted by this batch. */
  requests: number;
  used: number;
  /** Live reservations. */
  held: number;
  /** Units this batch bills. */
  usedDelta: number;
};

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  // 40P01 deadlock detected, 40001 serialization failure.
  return code === "40P01" || code === "40001";
}

function byKeyAndMonth(a: { keyId: string; month: string }, b: { keyId: string; month: string }): number {
  if (a.keyId !== b.keyId) return a.keyId < b.keyId ? -1 : 1;
  return a.month < b.month ? -1 : a.month > b.month ? 1 : 0;
}
