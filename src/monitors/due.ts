import { type SQL, sql } from "drizzle-orm";
import { type DueQueue, markDue, type QueueUnits } from "../background/due-units.ts";
import type { FairShare } from "../background/fair-share.ts";
import { dueWithinCap } from "../background/target-cap.ts";
import { at } from "./store.ts";

/**
 * Monitors' checks, in units of one key: a key is due when one of its scheduled checks is, on
 * the service's clock (the schedule's). Whoever schedules a check sooner than its key's due
 * time (a monitor created, resumed, its interval shortened, a check asked for) marks the key
 * (`markChecksDue`) in the same transaction.
 */
export const MONITOR_CHECKS: QueueUnits = {
  name: "monitor_checks",
  earliest: (unit) =>
    sql`(SELECT min(next_check_at) FROM monitors WHERE key_id = ${unit} AND next_check_at IS NOT NULL)`,
};

/** The statement that makes `keyId`'s checks due by `dueAt` at the latest. */
export const markChecksDue = (keyId: string, dueAt: SQL) => markDue(MONITOR_CHECKS, keyId, keyId, dueAt);

/**
 * A key's first `cap` checks due at `nowMs` and free to claim, earliest first, with their member
 * states. In the index's order only: a list watched in one request has one due time, and a tie
 * broken by id would sort all of them at every claim.
 */
export const dueChecks = (cap: number | SQL, key: SQL, nowMs: number) => sql`
  SELECT id, key_id, left(vat_number, 2) AS target, next_check_at FROM monitors
  WHERE key_id = ${key} AND next_check_at <= ${at(nowMs)} AND (lease_until IS NULL OR lease_until < now())
  ORDER BY next_check_at
  LIMIT ${cap}`;

/**
 * Checks as a worker holding `slots` finds them due at `nowMs`: of a key's first checks
 * due, those it could take now, none of a member state at its cap, so a key whose checks wait
 * only on such a state asks for nothing.
 */
export function claimableChecks(slots: FairShare, nowMs: number): DueQueue {
  return {
    ...MONITOR_CHECKS,
    now: at(nowMs),
    due: (unit, cap) => dueWithinCap(sql`SELECT target FROM (${dueChecks(cap, unit, nowMs)}) AS d`, slots),
  };
}
