import { type SQL, sql } from "drizzle-orm";
import type { FairShare } from "./fair-share.ts";

/**
 * Claims within a worker's cap per target (`FairShare`'s `perTargetMax`; for batch items and
 * monitors' checks, a VAT number's member state, whose authority's slots the work waits for;
 * for webhook messages, the host they go to): work for a target at its cap waits unclaimed in
 * the database instead of holding the worker's slots while it waits for the target, so a slow
 * or hanging target holds at most that many of them and other work goes on in the rest.
 *
 * Of a window of each unit's due work, earliest first, and of each of its targets' first due
 * work (`dueByTarget`, where the work has an index for it), a claim takes of each target no
 * more than the room left for it, the keys holding least of it first, so one key's long run of
 * one target does not keep another key's work for that target waiting behind it. Work without a
 * target (an IBAN) is never held back.
 */

/** Rows (target, room) of the targets `slots` holds; any other has room for its whole cap. */
function rooms(slots: FairShare): SQL {
  const rows = Array.from(slots.targetRoom(), ([target, room]) => ({ target, room: Math.max(0, room) }));
  return sql`(SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(target text, room int))`;
}

/** A target's room, from a row of `rooms` (null when it is not held). */
function roomOf(slots: FairShare, room: SQL): SQL {
  const whole = Number.isFinite(slots.perTargetMax) ? slots.perTargetMax : 2_147_483_647;
  return sql`COALESCE(${room}, ${whole})`;
}

/**
 * How much more work for `target` (a text expression) a claim may take: 0 at its cap. An
 * integer, to read of a target's work no more than a claim could take of it.
 */
function roomFor(target: SQL, slots: FairShare): SQL {
  return roomOf(slots, sql`(SELECT r.room FROM ${rooms(slots)} AS r WHERE r.target = ${target})`);
}

/**
 * A table of work claimed per unit and target, for `dueByTarget`: an index on (the unit's
 * columns, `target`, the order of `due` work) over the rows `pending` selects lets a claim find
 * a unit's targets and each target's first due work without reading the rest.
 */
export type TargetedWork = {
  table: SQL;
  /** What is read of a row, `target` among it (the target expression `AS target`). */
  columns: SQL;
  target: SQL;
  /** `unit`'s pending work, due or not (the index's unit columns and condition). */
  pending: (unit: SQL) => SQL;
  /** Of pending work, that which is due and free to claim. */
  due: SQL;
  /** The order in which a unit's due work is taken (the index's order after the target). */
  order: SQL;
  /**
   * Of a unit's targets, how many a claim reads one by one, in order; work for those past them
   * is read in the window of the unit's first due work only.
   */
  targetsRead: number;
};

/** `unit`'s first targets with pending work, in order: one index probe each, however much work each has. */
const targetsOf = (work: TargetedWork, unit: SQL) => sql`
  WITH RECURSIVE targets (target, n) AS (
    (SELECT ${work.target}, 1 FROM ${work.table}
      WHERE ${work.pending(unit)} AND ${work.target} IS NOT NULL ORDER BY ${work.target} LIMIT 1)
    UNION ALL
    SELECT next.target, targets.n + 1 FROM targets CROSS JOIN LATERAL (
      SELECT ${work.target} AS target FROM ${work.table}
      WHERE ${work.pending(unit)} AND ${work.target} > targets.target
      ORDER BY ${work.target} LIMIT 1) AS next
    WHERE targets.n < ${work.targetsRead})
  SELECT target FROM targets`;

/**
 * The due work of `unit` a claim reads (`work.columns`): its first `cap` due, and of each of its
 * first targets the first due, up to the room `slots` has left for the target. So what
 * a claim reads is bounded by `cap` and the targets, never by a backlog: the work of a target at
 * its cap is not read at all, and the unit's work for its other targets is found behind it,
 * which a window of its first due work alone would not reach. `lock` is appended to each read (a
 * claim's `FOR UPDATE SKIP LOCKED`).
 */
export const dueByTarget = (
  work: TargetedWork,
  cap: number | SQL,
  unit: SQL,
  slots: FairShare,
  lock: SQL = sql``,
) => sql`
  SELECT * FROM (
    SELECT ${work.columns} FROM ${work.table}
    WHERE ${work.pending(unit)} AND ${work.due}
    ORDER BY ${work.order}
    LIMIT ${cap} ${lock}) AS first_due
  UNION
  SELECT per_target.* FROM (${targetsOf(work, unit)}) AS t CROSS JOIN LATERAL (
    SELECT ${work.columns} FROM ${work.table}
    WHERE ${work.pending(unit)} AND ${work.target} = t.target AND ${work.due}
    ORDER BY ${work.order}
    LIMIT least(${cap}, ${roomFor(sql`t.target`, slots)}) ${lock}) AS per_target`;

/**
 * How much of a window of due work (`window`: rows with a `target` column) a claim could take:
 * of each target up to its room, all of the work without one. An integer.
 */
export function dueWithinCap(window: SQL, slots: FairShare): SQL {
  return sql`(SELECT COALESCE(sum(CASE WHEN c.target IS NULL THEN c.n
      ELSE least(c.n, ${roomOf(slots, sql`r.room`)}) END), 0)::int
    FROM (SELECT target, count(*) AS n FROM (${window}) AS w GROUP BY target) AS c
    LEFT JOIN ${rooms(slots)} AS r ON r.target = c.target)`;
}

/**
 * How much of `unit`'s due work a claim of at most `cap` could take: of what it reads of it
 * (`dueByTarget`), all but what it could not take for a target at its cap. An integer.
 */
export const claimableByTarget = (work: TargetedWork, cap: number | SQL, unit: SQL, slots: FairShare) =>
  sql`least(${dueWithinCap(sql`SELECT target FROM (${dueByTarget(work, cap, unit, slots)}) AS d`, slots)}, ${cap})`;

/**
 * Of `candidates` (rows with `unit`, `key`, `item` — what identifies the work within its unit
 * —, `target`, and `pos`, its place in its unit's window), those a claim takes: per target at
 * most its room, first to the keys holding least of it (counting what they take in this
 * claim); then per unit at most its take (`takes`: rows with `unit` and `take`), in the order
 * of its window — or, with `spread`, first to its targets its key holds least of, then in the
 * order of its window, so that a unit whose work comes target after target (a batch sorted by
 * member state) has its take shared by its targets, not given to its first few while the
 * others wait although they have room. Rows (unit, item).
 */
export function pickWithinCap(candidates: SQL, takes: SQL, slots: FairShare, spread = false): SQL {
  const holdings = sql`(SELECT * FROM jsonb_to_recordset(${JSON.stringify(slots.targetHoldings())}::jsonb)
    AS h(target text, key text, held int))`;
  return sql`
    SELECT r.unit, r.item FROM (
      SELECT c.unit, c.item, row_number() OVER (
        PARTITION BY c.unit ORDER BY ${spread ? sql`c.share, ` : sql``}c.pos) AS n FROM (
        SELECT c.*, COALESCE(h.held, 0) + c.turn AS share, row_number() OVER (
          PARTITION BY c.target ORDER BY COALESCE(h.held, 0) + c.turn, c.key, c.unit, c.pos) AS place
        FROM (
          SELECT c.*, row_number() OVER (PARTITION BY c.key, c.target ORDER BY c.unit, c.pos) AS turn
          FROM (${candidates}) AS c) AS c
        LEFT JOIN ${holdings} AS h ON h.target = c.target AND h.key = c.key) AS c
      LEFT JOIN ${rooms(slots)} AS r ON r.target = c.target
      WHERE c.target IS NULL OR c.place <= ${roomOf(slots, sql`r.room`)}) AS r
    JOIN (${takes}) AS t ON t.unit = r.unit
    WHERE r.n <= t.take`;
}
