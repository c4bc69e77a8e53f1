import { type SQL, sql } from "drizzle-orm";
import type { DueQueue, QueueUnits } from "../background/due-units.ts";
import type { FairShare } from "../background/fair-share.ts";
import { claimableByTarget, dueByTarget, type TargetedWork } from "../background/target-cap.ts";

/** Batch items, in units of one batch: a batch is due when one of its pending items is. */
export const BATCH_ITEMS: QueueUnits = {
  name: "batch_items",
  earliest: (unit) =>
    sql`(SELECT min(next_attempt_at) FROM batch_items WHERE batch_id = ${unit} AND status = 'pending')`,
};

/**
 * Of a batch's member states with pending items, how many a claim reads one by one, in prefix
 * order: more than there are prefixes a format check knows, so every state is.
 */
const STATES_READ_PER_BATCH = 64;

const ITEMS: TargetedWork = {
  table: sql`batch_items`,
  columns: sql`batch_id, idx, vat_prefix AS target, next_attempt_at`,
  target: sql`vat_prefix`,
  pending: (unit) => sql`batch_id = ${unit} AND status = 'pending'`,
  due: sql`next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())`,
  order: sql`next_attempt_at, idx`,
  targetsRead: STATES_READ_PER_BATCH,
};

/**
 * The due items of a batch a claim reads (`batch_id`, `idx`, `target`: the member state,
 * `next_attempt_at`): its first `cap` due, earliest due first (then in input order), and of each
 * member state the first due, up to the room `slots` has left for the state (`dueByTarget`).
 * So a batch sorted by state has its items of every state with room read, not only those of the
 * first states in its window, and none of a state at its cap.
 */
export const dueItems = (cap: number | SQL, unit: SQL, slots: FairShare, lock: SQL = sql``) =>
  dueByTarget(ITEMS, cap, unit, slots, lock);

/**
 * Batch items as a worker holding `slots` finds them due: of what a claim would read of a
 * batch's items, those it could take now, none of a member state at its cap, so a batch that
 * waits only on such a state asks for nothing.
 */
export function claimableItems(slots: FairShare): DueQueue {
  return { ...BATCH_ITEMS, due: (unit, cap) => claimableByTarget(ITEMS, cap, unit, slots) };
}
