import { type SQL, sql } from "drizzle-orm";
import type { DueQueue, QueueUnits } from "../background/due-units.ts";
import type { FairShare } from "../background/fair-share.ts";
import { dueWithinCap } from "../background/target-cap.ts";

/** Batch items, in units of one batch: a batch is due when one of its pending items is. */
export const BATCH_ITEMS: QueueUnits = {
  name: "batch_items",
  earliest: (unit) =>
    sql`(SELECT min(next_attempt_at) FROM batch_items WHERE batch_id = ${unit} AND status = 'pending')`,
};

/** A batch's first `cap` items due and free to claim, earliest due first (then in input order). */
export const dueItems = (cap: number | SQL, unit: SQL) => sql`
  SELECT batch_id, idx, vat_prefix, next_attempt_at FROM batch_items
  WHERE batch_id = ${unit} AND status = 'pending' AND next_attempt_at <= now()
    AND (lease_until IS NULL OR lease_until < now())
  ORDER BY next_attempt_at, idx
  LIMIT ${cap}`;

/**
 * Batch items as a worker holding `slots` finds them due: of a batch's first items due,
 * those it could take now, none of a member state at its cap, so a batch that waits only on
 * such a state asks for nothing.
 */
export function claimableItems(slots: FairShare): DueQueue {
  return {
    ...BATCH_ITEMS,
    due: (unit, cap) =>
      dueWithinCap(sql`SELECT vat_prefix AS target FROM (${dueItems(cap, unit)}) AS d`, slots),
  };
}
