import { type SQL, sql } from "drizzle-orm";
import type { FairShare } from "./fair-share.ts";

/**
 * Claims within a worker's cap per target (`FairShare`'s `perTargetMax`; for batch items and
 * monitors' checks, a VAT number's member state, whose authority's slots the work waits for;
 * for webhook messages, the host they go to): work for a target at its cap waits unclaimed in
 * the database instead of holding the worker's slots while it waits for the target, so a slow
 * or hanging target holds at most that many of them and other work goes on in the rest.
 *
 * Of a window of each unit's due work, earliest first, a claim takes of each target no more
 * than the room left for it, the keys holding least of it first, so one key's long run of one
 * target does not keep another key's work for that target waiting behind it. Work without a
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
export function roomFor(target: SQL, slots: FairShare): SQL {
  return roomOf(slots, sql`(SELECT r.room FROM ${rooms(slots)} AS r WHERE r.target = ${target})`);
}

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
 * Of `candidates` (rows with `unit`, `key`, `item` — what identifies the work within its unit
 * —, `target`, and `pos`, its place in its unit's window), those a claim takes: per target at
 * most its room, first to the keys holding least of it (counting what they take in this
 * claim); then per unit at most its take (`takes`: rows with `unit` and `take`), in the order
 * of its window. Rows (unit, item).
 */
export function pickWithinCap(candidates: SQL, takes: SQL, slots: FairShare): SQL {
  const holdings = sql`(SELECT * FROM jsonb_to_recordset(${JSON.stringify(slots.targetHoldings())}::jsonb)
    AS h(target text, key text, held int))`;
  return sql`
    SELECT r.unit, r.item FROM (
      SELECT c.unit, c.item, row_number() OVER (PARTITION BY c.unit ORDER BY c.pos) AS n FROM (
        SELECT c.*, row_number() OVER (
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
