import { sql } from "drizzle-orm";
import type { DueQueue } from "../background/due-units.ts";

/** Batch items, in units of one batch: a batch is due when one of its pending items is. */
export const BATCH_ITEMS: DueQueue = {
  name: "batch_items",
  earliest: (unit) =>
    sql`(SELECT min(next_attempt_at) FROM batch_items WHERE batch_id = ${unit} AND status = 'pending')`,
  due: (unit, cap) => sql`(SELECT count(*)::int FROM (
    SELECT 1 FROM batch_items
    WHERE batch_id = ${unit} AND status = 'pending' AND next_attempt_at <= now()
      AND (lease_until IS NULL OR lease_until < now())
    LIMIT ${cap}) AS due)`,
};
