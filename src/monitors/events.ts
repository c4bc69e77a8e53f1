import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { iso } from "../batches/store.ts";
import { type Database, jsonb, type Rows } from "../kernel/db.ts";
import { queueMonitorWebhook } from "../webhooks/messages.ts";
import type { Monitor, MonitorEvent, MonitorEventRecord } from "./schema.ts";
import { at } from "./store.ts";

export function newEventId(): string {
  return `evt_${randomBytes(12).toString("hex")}`;
}

/**
 * Writes a monitor's events, in the transaction that finished the check that found them, and
 * queues each as a webhook message (under the event's id) when the monitor has a webhook: an
 * event exists, and is delivered, exactly when its check was finished.
 */
export async function recordEvents(
  rows: Rows,
  keyId: string,
  monitor: Monitor,
  messages: MonitorEvent[],
  nowMs: number,
): Promise<void> {
  for (const message of messages) {
    const id = newEventId();
    // As jsonb is written: an authority's text with a NUL or half a UTF-16 pair must not make
    // the statement fail, and with it the check, again and again.
    const payload = jsonb(message);
    await rows(sql`
      INSERT INTO monitor_events (id, monitor_id, type, payload, created_at)
      VALUES (${id}, ${monitor.id}, ${message.type}, ${payload}, ${at(nowMs)})`);
    if (monitor.webhook !== null)
      await queueMonitorWebhook(rows, {
        id,
        keyId,
        monitorId: monitor.id,
        url: monitor.webhook.url,
        payload,
      });
  }
}

/**
 * A page of a key's monitor's events, oldest first, after position `after`; null for another
 * key's or an unknown monitor. `next` is the position to continue after, null on the last page.
 */
export async function eventsPage(
  database: Database,
  keyId: string,
  monitorId: string,
  query: { after: number; limit: number },
): Promise<{ events: MonitorEventRecord[]; next: number | null } | null> {
  const [owned] = await database.rows<{ id: string }>(
    sql`SELECT id FROM monitors WHERE id = ${monitorId} AND key_id = ${keyId}`,
  );
  if (!owned) return null;
  const rows = await database.rows<{ id: string; seq: number; created_at: string; payload: string }>(sql`
    SELECT id, seq::float8 AS seq, ${iso(sql`created_at`)} AS created_at, payload FROM monitor_events
    WHERE monitor_id = ${monitorId} AND seq > ${query.after}
    ORDER BY seq LIMIT ${query.limit + 1}`);
  const page = rows.slice(0, query.limit);
  return {
    events: page.map((row) => {
      const message = JSON.parse(row.payload) as MonitorEvent;
      return { id: row.id, type: message.type, created_at: row.created_at, data: message.data };
    }),
    next: rows.length > query.limit ? Number(page.at(-1)?.seq) : null,
  };
}
