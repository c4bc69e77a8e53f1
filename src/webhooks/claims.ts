import { randomBytes } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { webhookHost } from "../../db/schema.ts";
import { type DueQueue, settleUnits } from "../background/due-units.ts";
import type { FairShare } from "../background/fair-share.ts";
import {
  claimableByTarget,
  dueByTarget,
  pickWithinCap,
  type TargetedWork,
} from "../background/target-cap.ts";
import type { Database } from "../kernel/db.ts";
import { WEBHOOK_MESSAGES } from "./messages.ts";

/** A message a worker holds, under its claim's token. */
export type ClaimedMessage = {
  id: string;
  keyId: string;
  host: string;
  url: string;
  payload: string;
  attempts: number;
  token: string;
};

/**
 * Of a key's hosts with pending messages, how many a claim reads, in name order. More than can
 * be at their cap at once in the default 16 slots, so hosts at their cap or waiting for their
 * retries rarely hide a key's other hosts; a key with more hosts still has its first due
 * messages read, whatever their host.
 */
export const HOSTS_READ_PER_KEY = 32;

const MESSAGES: TargetedWork = {
  table: sql`webhook_deliveries`,
  columns: sql`id, ${webhookHost(sql`url`)} AS target, next_attempt_at`,
  target: webhookHost(sql`url`),
  pending: (key) => sql`key_id = ${key} AND status = 'pending'`,
  due: sql`next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())`,
  order: sql`next_attempt_at`,
  targetsRead: HOSTS_READ_PER_KEY,
};

/**
 * The due messages of `key` a claim reads (`id`, `target`: the host, `next_attempt_at`): its
 * first `cap` due, and of each of its first hosts the first due, up to the room `slots` has
 * left for the host (`dueByTarget`); none of a host at its cap.
 */
export const dueMessages = (cap: number | SQL, key: SQL, slots: FairShare, lock: SQL = sql``) =>
  dueByTarget(MESSAGES, cap, key, slots, lock);

/**
 * Webhook messages as a worker holding `slots` finds them due: of what a claim would read of a
 * key's messages, those it could take now, none to a host at its cap, so a key whose messages
 * all wait for such a host asks for nothing.
 */
export function claimableMessages(slots: FairShare): DueQueue {
  return {
    ...WEBHOOK_MESSAGES,
    due: (unit, cap) => claimableByTarget(MESSAGES, cap, unit, slots),
  };
}

/**
 * Leases, of each wanted key, up to `take` of its due messages (earliest first) for `leaseMs`
 * under a new token, in one statement; those another claim holds are skipped, not waited for.
 * Of what it reads (`dueMessages`, at least `window` of each key), it takes for one host no
 * more than the room `slots` has left for it, the keys holding least of it first. A leased
 * message is next due when its lease runs out. Keys that gave fewer than wanted, and the
 * `idle` ones, are settled.
 */
export async function claimMessages(
  database: Database,
  wanted: { keyId: string; take: number }[],
  leaseMs: number,
  idle: string[],
  within: { slots: FairShare; window: number },
): Promise<ClaimedMessage[]> {
  if (wanted.length === 0) {
    await settleUnits(database, WEBHOOK_MESSAGES, idle);
    return [];
  }
  const token = `wh_${randomBytes(9).toString("hex")}`;
  const rows = await database.rows<Omit<ClaimedMessage, "token" | "keyId"> & { key_id: string }>(sql`
    WITH wanted AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(wanted.map(({ keyId, take }) => ({ key: keyId, take })))}::jsonb)
        AS w(key text, take int)
    ), candidates AS (
      SELECT w.key AS unit, w.key, d.id AS item, d.target,
        row_number() OVER (PARTITION BY w.key ORDER BY d.next_attempt_at, d.id) AS pos
      FROM wanted w CROSS JOIN LATERAL (
        ${dueMessages(sql`GREATEST(w.take, ${within.window})`, sql`w.key`, within.slots, sql`FOR UPDATE SKIP LOCKED`)}) d
    ), picked AS (
      ${pickWithinCap(sql`SELECT * FROM candidates`, sql`SELECT key AS unit, take FROM wanted`, within.slots)}
    )
    UPDATE webhook_deliveries d SET lease_token = ${token},
      lease_until = now() + ${leaseMs} * interval '1 millisecond',
      next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
    FROM picked WHERE d.id = picked.item
    RETURNING d.id, d.key_id, ${webhookHost(sql`d.url`)} AS host, d.url, d.payload, d.attempts`);
  const claimed = new Map<string, number>();
  for (const row of rows) claimed.set(row.key_id, (claimed.get(row.key_id) ?? 0) + 1);
  await settleUnits(database, WEBHOOK_MESSAGES, [
    ...idle,
    ...wanted.filter(({ keyId, take }) => (claimed.get(keyId) ?? 0) < take).map(({ keyId }) => keyId),
  ]);
  return rows.map(({ key_id, ...row }) => ({ ...row, keyId: key_id, token }));
}

/**
 * Gives up the leases on `held` (a worker stopping), so the messages can be attempted at once;
 * each by its id and its claim's token, so a message whose attempt failed unwritten keeps its
 * lease until it runs out.
 */
export async function releaseMessages(database: Database, held: ClaimedMessage[]): Promise<void> {
  if (held.length === 0) return;
  await database.rows(sql`
    WITH released AS (
      UPDATE webhook_deliveries d SET lease_token = NULL, lease_until = NULL, next_attempt_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(held.map(({ id, token }) => ({ id, token })))}::jsonb)
        AS h(id text, token text)
      WHERE d.id = h.id AND d.lease_token = h.token AND d.status = 'pending'
      RETURNING d.key_id
    )
    UPDATE work_due SET due_at = now(), marks = marks + 1
    WHERE queue = ${WEBHOOK_MESSAGES.name} AND unit IN (SELECT key_id FROM released)`);
}
