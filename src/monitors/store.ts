import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { iso, webhookStateOf } from "../batches/store.ts";
import { type Database, jsonb, nextTurn, type Rows } from "../kernel/db.ts";
import { ApiError } from "../kernel/errors.ts";
import type { VatResult } from "../vat/schema.ts";
import { markChecksDue } from "./due.ts";
import type { MonitorInput } from "./input.ts";
import type { Monitor, MonitorStatus, MonitorUpdate } from "./schema.ts";

type MonitorRow = {
  id: string;
  vat_number: string;
  reference: string | null;
  interval_days: number;
  status: MonitorStatus;
  created_at: string;
  last_checked_at: string | null;
  next_check_at: string | null;
  last_result: string | null;
  webhook_url: string | null;
  last_attempt_at: string | null;
  last_status: number | null;
  attempts: number | null;
};

/** A monitor's columns, with the delivery of its latest webhook message (`w`). */
const MONITOR_COLUMNS = sql`m.id, m.vat_number, m.reference, m.interval_days, m.status,
  ${iso(sql`m.created_at`)} AS created_at, ${iso(sql`m.last_checked_at`)} AS last_checked_at,
  ${iso(sql`m.next_check_at`)} AS next_check_at, m.last_result::text AS last_result, m.webhook_url,
  ${iso(sql`w.last_attempt_at`)} AS last_attempt_at, w.last_status, w.attempts`;

const MONITOR_FROM = sql`monitors m LEFT JOIN LATERAL (
    SELECT last_attempt_at, last_status, attempts FROM webhook_deliveries d
    WHERE d.monitor_id = m.id ORDER BY d.created_at DESC, d.id DESC LIMIT 1
  ) w ON true`;

/** The API's monitor from its row. */
function toMonitor(row: MonitorRow): Monitor {
  return {
    id: row.id,
    vat_number: row.vat_number,
    reference: row.reference,
    interval_days: row.interval_days,
    status: row.status,
    created_at: row.created_at,
    last_checked_at: row.last_checked_at,
    next_check_at: row.next_check_at,
    last_result: row.last_result === null ? null : (JSON.parse(row.last_result) as VatResult),
    webhook: webhookStateOf(row),
  };
}

/** A time of the service's clock as a `timestamptz` parameter. */
export const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;

export function newMonitorId(): string {
  return `mon_${randomBytes(12).toString("hex")}`;
}

/** Rows written or read per statement: on the embedded database a statement holds the server's thread. */
const ROWS_PER_STATEMENT = 500;

/** The key's monitors of these numbers, by number. */
async function monitorsOf(rows: Rows, keyId: string, numbers: string[]): Promise<Map<string, Monitor>> {
  const found = new Map<string, Monitor>();
  for (let start = 0; start < numbers.length; start += ROWS_PER_STATEMENT) {
    await nextTurn();
    const chunk = numbers.slice(start, start + ROWS_PER_STATEMENT);
    const page = await rows<MonitorRow>(sql`
      SELECT ${MONITOR_COLUMNS} FROM ${MONITOR_FROM}
      WHERE m.key_id = ${keyId}
        AND m.vat_number IN (SELECT value FROM jsonb_array_elements_text(${JSON.stringify(chunk)}::jsonb))`);
    for (const row of page) found.set(row.vat_number, toMonitor(row));
  }
  return found;
}

/**
 * Creates a key's monitors of the numbers it does not watch yet, in one transaction, each due
 * at once (`nowMs`), and returns one monitor per item, in input order: the new one, or the one
 * that already watched the number. The key's creations take turns on its key row, so the
 * count of its monitors each one reads is exact; a request that would take the key past
 * `limit` creates nothing (400).
 */
export async function createMonitors(
  database: Database,
  input: {
    keyId: string;
    items: MonitorInput[];
    webhookUrl: string | null;
    limit: { monitors: number; plan: string };
    nowMs: number;
  },
): Promise<{ monitors: Monitor[]; created: Set<string> }> {
  const { keyId, items, nowMs } = input;
  // A number listed twice is watched as its first item says.
  const firsts = new Map<string, MonitorInput>();
  for (const item of items) if (!firsts.has(item.vatNumber)) firsts.set(item.vatNumber, item);
  const distinct = [...firsts.values()];
  return database.transaction(async (rows) => {
    await rows(sql`SELECT id FROM api_keys WHERE id = ${keyId} FOR UPDATE`);
    const [watched] = await rows<{ count: number }>(
      sql`SELECT count(*)::int AS count FROM monitors WHERE key_id = ${keyId}`,
    );
    const created = new Set<string>();
    for (let start = 0; start < distinct.length; start += ROWS_PER_STATEMENT) {
      await nextTurn();
      const chunk = distinct.slice(start, start + ROWS_PER_STATEMENT).map((item) => ({
        id: newMonitorId(),
        vat_number: item.vatNumber,
        reference: item.reference,
        match: item.match,
        interval_days: item.intervalDays,
      }));
      const inserted = await rows<{ vat_number: string }>(sql`
        INSERT INTO monitors (id, key_id, vat_number, reference, match, interval_days, webhook_url,
          created_at, due_at, next_check_at)
        SELECT d.id, ${keyId}, d.vat_number, d.reference, d.match, d.interval_days, ${input.webhookUrl},
          ${at(nowMs)}, ${at(nowMs)}, ${at(nowMs)}
        FROM jsonb_to_recordset(${jsonb(chunk)}::jsonb)
          AS d(id text, vat_number text, reference text, match jsonb, interval_days int)
        ON CONFLICT (key_id, vat_number) DO NOTHING
        RETURNING vat_number`);
      for (const row of inserted) created.add(row.vat_number);
    }
    if (created.size > 0) await rows(markChecksDue(keyId, at(nowMs)));
    const total = (watched?.count ?? 0) + created.size;
    if (total > input.limit.monitors) {
      throw new ApiError(
        "invalid_request",
        `the ${input.limit.plan} plan watches at most ${input.limit.monitors} numbers per key; this key watches ${watched?.count ?? 0} and this request adds ${created.size}: delete monitors first (DELETE /monitors/{id})`,
      );
    }
    const byNumber = await monitorsOf(
      rows,
      keyId,
      distinct.map((item) => item.vatNumber),
    );
    return { monitors: items.map((item) => byNumber.get(item.vatNumber) as Monitor), created };
  });
}

/** A key's monitor; null for another key's or an unknown id. */
export async function findMonitor(rows: Rows, keyId: string, id: string): Promise<Monitor | null> {
  const [row] = await rows<MonitorRow>(
    sql`SELECT ${MONITOR_COLUMNS} FROM ${MONITOR_FROM} WHERE m.id = ${id} AND m.key_id = ${keyId}`,
  );
  return row ? toMonitor(row) : null;
}

/**
 * A page of a key's monitors in creation order, after position `after` (0: from the start),
 * of one status or all. `next` is the position to continue after, null on the last page.
 */
export async function monitorsPage(
  database: Database,
  keyId: string,
  query: { status: MonitorStatus | null; after: number; limit: number },
): Promise<{ monitors: Monitor[]; next: number | null }> {
  const status = query.status === null ? sql`` : sql`AND m.status = ${query.status}`;
  const rows = await database.rows<MonitorRow & { seq: number }>(sql`
    SELECT ${MONITOR_COLUMNS}, m.seq::float8 AS seq FROM ${MONITOR_FROM}
    WHERE m.key_id = ${keyId} ${status} AND m.seq > ${query.after}
    ORDER BY m.seq LIMIT ${query.limit + 1}`);
  const page = rows.slice(0, query.limit);
  return {
    monitors: page.map(toMonitor),
    next: rows.length > query.limit ? Number(page.at(-1)?.seq) : null,
  };
}

/**
 * Changes a key's monitor; null for another key's or an unknown id. A new interval moves its
 * next round by the difference (a monitor not yet answered keeps its first check, due now);
 * pausing drops its scheduled check and any retry under way; resuming schedules its round
 * again, at once if the round passed while it was paused. A check under way is not touched:
 * it finishes, and schedules the next one by what it finds then.
 */
export async function updateMonitor(
  database: Database,
  keyId: string,
  id: string,
  update: MonitorUpdate,
  nowMs: number,
): Promise<Monitor | null> {
  const interval = update.interval_days ?? null;
  const status = update.status ?? null;
  const due = sql`CASE WHEN ${interval}::int IS NULL OR last_checked_at IS NULL THEN due_at
    ELSE due_at + (${interval}::int - interval_days) * interval '1 day' END`;
  const changed = await database.transaction(async (rows) => {
    const updated = await rows<{ next_check_at: string | null }>(sql`
    UPDATE monitors SET
      interval_days = COALESCE(${interval}::int, interval_days),
      due_at = ${due},
      next_check_at = CASE
        WHEN ${status}::text = 'paused' THEN NULL
        WHEN ${status}::text = 'active' AND status = 'paused' THEN GREATEST(${due}, ${at(nowMs)})
        WHEN next_check_at = due_at THEN ${due}
        ELSE next_check_at END,
      attempts = CASE WHEN ${status}::text IS NULL OR ${status}::text = status THEN attempts ELSE 0 END,
      retry_since = CASE WHEN ${status}::text IS NULL OR ${status}::text = status THEN retry_since ELSE NULL END,
      status = COALESCE(${status}::text, status),
      reference = CASE WHEN ${update.reference !== undefined} THEN ${update.reference ?? null} ELSE reference END,
      webhook_url = CASE WHEN ${update.webhook_url !== undefined} THEN ${update.webhook_url ?? null} ELSE webhook_url END
    WHERE id = ${id} AND key_id = ${keyId}
    RETURNING next_check_at::text`);
    await markScheduled(rows, keyId, updated);
    return updated;
  });
  return changed.length === 0 ? null : findMonitor(database.rows, keyId, id);
}

/** Deletes a key's monitor with its events and webhook messages; the monitor as it was, or null. */
export async function deleteMonitor(database: Database, keyId: string, id: string): Promise<Monitor | null> {
  return database.transaction(async (rows) => {
    const monitor = await findMonitor(rows, keyId, id);
    if (monitor) await rows(sql`DELETE FROM monitors WHERE id = ${id} AND key_id = ${keyId}`);
    return monitor;
  });
}

/**
 * Makes a key's monitor due now (`nowMs`), paused or not: the next worker free takes it up, as
 * it would a scheduled check. Null for another key's or an unknown id.
 */
export async function requestCheck(
  database: Database,
  keyId: string,
  id: string,
  nowMs: number,
): Promise<Monitor | null> {
  const changed = await database.transaction(async (rows) => {
    const updated = await rows<{ next_check_at: string | null }>(sql`
      UPDATE monitors SET next_check_at = LEAST(COALESCE(next_check_at, ${at(nowMs)}), ${at(nowMs)})
      WHERE id = ${id} AND key_id = ${keyId} RETURNING next_check_at::text`);
    await markScheduled(rows, keyId, updated);
    return updated;
  });
  return changed.length === 0 ? null : findMonitor(database.rows, keyId, id);
}

/** Marks a key's checks due by the check a change has just scheduled, if it did (it may be sooner). */
async function markScheduled(rows: Rows, keyId: string, changed: { next_check_at: string | null }[]) {
  const [monitor] = changed;
  if (monitor?.next_check_at) await rows(markChecksDue(keyId, sql`${monitor.next_check_at}::timestamptz`));
}
