import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../kernel/db.ts";

/**
 * Which units of background work have something due, without looking at those that do not.
 *
 * A queue's work is grouped in units (a batch's items, a key's webhook messages), each with a
 * row in `work_due` whose `due_at` is never later than the earliest `next_attempt_at` of the
 * unit's pending work. Workers read due units only, through an index, so a tick costs the same
 * whether a thousand units wait for a member state or none do; a unit found to have nothing due
 * is settled: its `due_at` moves to its earliest pending work, or its row goes when it has none.
 *
 * The rule that keeps it right: whoever makes work due sooner lowers the unit's `due_at` and
 * counts a mark (`markDue`) in the statement or transaction that does it; settling writes only
 * if the unit's marks are still those it read with the work, so a settle that could not see
 * such a change leaves the lowered time alone. Work that becomes due later (a lease renewed)
 * only costs a visit that finds nothing.
 */
export type DueQueue = QueueUnits & {
  /** How much of a unit's work is due and free to claim, counted up to `cap` (an integer). */
  due: (unit: SQL, cap: number) => SQL;
  /**
   * The time by which work is due: the database's clock unless the queue's work is scheduled
   * on the service's (monitors).
   */
  now?: SQL;
};

/** A queue's units as marks and settles see them. */
export type QueueUnits = {
  /** The queue's name in `work_due`. */
  name: string;
  /** The earliest time a unit's pending work is due (null when it has none), for `unit`. */
  earliest: (unit: SQL) => SQL;
};

/**
 * The statement that lowers a unit's due time to `at` (or creates the unit): to run on its own
 * or as a step of the statement that makes the work due (`WITH due AS (…) UPDATE …`).
 */
export function markDue(queue: QueueUnits, unit: string, keyId: string, at: SQL): SQL {
  return sql`
    INSERT INTO work_due (queue, unit, key_id, due_at) VALUES (${queue.name}, ${unit}, ${keyId}, ${at})
    ON CONFLICT (queue, unit) DO UPDATE
      SET due_at = LEAST(work_due.due_at, EXCLUDED.due_at), marks = work_due.marks + 1`;
}

/**
 * Due units, one per key (its earliest due), at most `limit`, the keys in turn: those after
 * `afterKey` first, then from the start; with how much of each is due, counted up to `limit`.
 * The caller passes the last key it got as the next `afterKey`, so every key with work gets its
 * turn however many there are.
 */
export async function dueUnits(
  database: Database,
  queue: DueQueue,
  afterKey: string,
  limit: number,
): Promise<{ unit: string; keyId: string; due: number }[]> {
  const rows = await database.rows<{ unit: string; key_id: string; due: number }>(sql`
    SELECT unit, key_id, ${queue.due(sql`unit`, limit)} AS due FROM (
      SELECT unit, key_id FROM (
        SELECT DISTINCT ON (key_id) unit, key_id FROM work_due
        WHERE queue = ${queue.name} AND due_at <= ${queue.now ?? sql`now()`}
        ORDER BY key_id, due_at, unit) AS first_due
      ORDER BY key_id <= ${afterKey}, key_id
      LIMIT ${limit}) AS chosen`);
  return rows.map((row) => ({ unit: row.unit, keyId: row.key_id, due: Number(row.due) }));
}

/**
 * Moves each unit's due time to its earliest pending work, and drops the units that have none
 * (for units a claim found with less due than it asked for), in one statement. A unit marked
 * meanwhile is left as the mark set it: its work may have changed after this statement read it.
 * A unit whose time would not move is not written (one whose due work waits for a member state
 * at its cap is found, and settled, at every tick).
 */
export async function settleUnits(database: Database, queue: QueueUnits, units: string[]): Promise<void> {
  if (units.length === 0) return;
  await database.rows(sql`
    WITH seen AS (
      SELECT d.unit, d.marks, ${queue.earliest(sql`d.unit`)} AS earliest FROM work_due d
      WHERE d.queue = ${queue.name}
        AND d.unit IN (SELECT value FROM jsonb_array_elements_text(${JSON.stringify(units)}::jsonb))
    ), moved AS (
      UPDATE work_due d SET due_at = seen.earliest FROM seen
      WHERE d.queue = ${queue.name} AND d.unit = seen.unit AND d.marks = seen.marks
        AND seen.earliest IS NOT NULL AND d.due_at IS DISTINCT FROM seen.earliest
    )
    DELETE FROM work_due d USING seen
    WHERE d.queue = ${queue.name} AND d.unit = seen.unit AND d.marks = seen.marks AND seen.earliest IS NULL`);
}

/** Makes every unit of the queue due now (a sole worker starting over what a crash left). */
export async function allDue(database: Database, queue: QueueUnits): Promise<void> {
  await database.rows(
    sql`UPDATE work_due SET due_at = now(), marks = marks + 1 WHERE queue = ${queue.name} AND due_at > now()`,
  );
}
