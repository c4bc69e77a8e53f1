import { randomBytes } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import type { BatchLimits } from "../accounts/plans.ts";
import { markDue } from "../background/due-units.ts";
import type { IbanResult } from "../iban/schema.ts";
import { type Database, jsonb, nextTurn, type Rows } from "../kernel/db.ts";
import type { ApiErrorBody } from "../kernel/errors.ts";
import { checkVatFormat } from "../vat/format/check-vat-format.ts";
import type { VatResult } from "../vat/schema.ts";
import { BATCH_ITEMS } from "./due.ts";
import { repeatsOf } from "./repeats.ts";
import type { Batch, BatchItem, BatchItemInput, BatchStatus, ItemStatus, WebhookState } from "./schema.ts";
import { countBatchVolume } from "./volume.ts";

/** A timestamp column as the API writes times: ISO 8601 in UTC with milliseconds. */
export const iso = (column: SQL) =>
  sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type BatchRow = {
  id: string;
  key_id: string;
  status: BatchStatus;
  created_at: string;
  completed_at: string | null;
  total: number;
  done: number;
  valid: number;
  invalid: number;
  failed: number;
  billed: number;
  webhook_url: string | null;
  last_attempt_at: string | null;
  last_status: number | null;
  attempts: number | null;
};

const BATCH_COLUMNS = sql`b.id, b.key_id, b.status, ${iso(sql`b.created_at`)} AS created_at,
  ${iso(sql`b.completed_at`)} AS completed_at, b.total, b.done, b.valid, b.invalid, b.failed, b.billed,
  b.webhook_url, ${iso(sql`w.last_attempt_at`)} AS last_attempt_at, w.last_status, w.attempts`;

const BATCH_FROM = sql`batches b LEFT JOIN webhook_deliveries w ON w.batch_id = b.id`;

/** The API's batch object from its row (and its webhook delivery, if one was made). */
export function toBatch(row: BatchRow): Batch {
  return {
    id: row.id,
    status: row.status,
    created_at: row.created_at,
    completed_at: row.completed_at,
    counts: {
      total: row.total,
      done: row.done,
      valid: row.valid,
      invalid: row.invalid,
      failed: row.failed,
      billed: row.billed,
    },
    webhook: webhookStateOf(row),
  };
}

/** A webhook's state from the columns of its URL and its latest message (absent before one). */
export function webhookStateOf(row: {
  webhook_url: string | null;
  last_attempt_at: string | null;
  last_status: number | null;
  attempts: number | null;
}): WebhookState | null {
  if (row.webhook_url === null) return null;
  return {
    url: row.webhook_url,
    last_delivery_at: row.last_attempt_at,
    last_status: row.last_status,
    attempts: row.attempts ?? 0,
  };
}

/**
 * Rows written per statement when a batch is created or cancelled: on the embedded database a
 * statement holds the server's thread, so this bounds what one holds it for (about 50 ms on
 * a quiet machine, a few hundred under load) and `nextTurn` lets other requests in between.
 */
const ROWS_PER_STATEMENT = 500;

export function newBatchId(): string {
  return `bat_${randomBytes(12).toString("hex")}`;
}

/**
 * Creates a batch and all its items in one transaction, counted against the key's plan limits
 * first: nothing is created if any of it fails or a limit refuses it.
 */
export async function createBatch(
  database: Database,
  input: {
    keyId: string;
    items: BatchItemInput[];
    webhookUrl: string | null;
    plan: { id: string; limits: BatchLimits };
  },
): Promise<Batch> {
  const id = newBatchId();
  // Read back inside the transaction: the answer is the batch as created (queued, nothing
  // done), not whatever a worker that took it up a moment after the commit has made of it.
  return database.transaction(async (rows) => {
    await countBatchVolume(rows, {
      keyId: input.keyId,
      items: input.items.length,
      limits: input.plan.limits,
      plan: input.plan.id,
    });
    await rows(sql`
      INSERT INTO batches (id, key_id, total, webhook_url)
      VALUES (${id}, ${input.keyId}, ${input.items.length}, ${input.webhookUrl})`);
    await rows(markDue(BATCH_ITEMS, id, input.keyId, sql`now()`));
    const repeats = repeatsOf(input.items);
    for (let start = 0; start < input.items.length; start += ROWS_PER_STATEMENT) {
      await nextTurn();
      const chunk = input.items.slice(start, start + ROWS_PER_STATEMENT).map((item, offset) => {
        const repeatOf = repeats[start + offset] ?? null;
        return {
          idx: start + offset,
          vat: item.vat ?? null,
          // A repeat never asks its authority: no member state's cap holds it back.
          vat_prefix: item.vat === undefined || repeatOf !== null ? null : vatPrefixOf(item.vat),
          iban: item.iban ?? null,
          match: item.match ?? null,
          reference: item.reference ?? null,
          repeat_of: repeatOf,
        };
      });
      // A repeat is not due until its first item is finished (`recordFinished` makes it due).
      await rows(sql`
        INSERT INTO batch_items (batch_id, idx, vat, vat_prefix, iban, match, reference, repeat_of, next_attempt_at)
        SELECT ${id}, d.idx, d.vat, d.vat_prefix, d.iban, d.match, d.reference, d.repeat_of,
          CASE WHEN d.repeat_of IS NULL THEN now() ELSE 'infinity' END
        FROM jsonb_to_recordset(${jsonb(chunk)}::jsonb)
          AS d(idx int, vat text, vat_prefix text, iban text, match jsonb, reference text, repeat_of int)`);
    }
    return (await findBatch(rows, input.keyId, id)) as Batch;
  });
}

/** The prefix a VAT number is asked with (its authority's slots), null when the format check refuses it. */
function vatPrefixOf(vat: string): string | null {
  const format = checkVatFormat(vat);
  return format.ok ? format.prefix : null;
}

/** A key's batch; null for another key's or an unknown id. */
export async function findBatch(rows: Rows, keyId: string, id: string): Promise<Batch | null> {
  const [row] = await rows<BatchRow>(
    sql`SELECT ${BATCH_COLUMNS} FROM ${BATCH_FROM} WHERE b.id = ${id} AND b.key_id = ${keyId}`,
  );
  return row ? toBatch(row) : null;
}

type ItemRow = {
  idx: number;
  reference: string | null;
  status: ItemStatus;
  vat_result: string | null;
  iban_result: string | null;
  billable: boolean;
  error: string | null;
};

/**
 * A page of a key's batch's items in input order, from index `from`; null for another key's
 * or an unknown batch. `next` is the index after the page, null on the last page.
 */
export async function itemsPage(
  database: Database,
  keyId: string,
  id: string,
  from: number,
  limit: number,
): Promise<{ items: BatchItem[]; next: number | null } | null> {
  const [owned] = await database.rows<{ total: number }>(
    sql`SELECT total FROM batches WHERE id = ${id} AND key_id = ${keyId}`,
  );
  if (!owned) return null;
  const rows = await database.rows<ItemRow>(sql`
    SELECT idx, reference, status, vat_result::text, iban_result::text, billable, error::text
    FROM batch_items WHERE batch_id = ${id} AND idx >= ${from}
    ORDER BY idx LIMIT ${limit}`);
  const last = rows.at(-1);
  return {
    items: rows.map(toItem),
    next: last && last.idx + 1 < owned.total ? last.idx + 1 : null,
  };
}

/** A stored VAT result; those stored before matching existed have no `match`: none was asked. */
export function storedVatResult(text: string): VatResult {
  const stored = JSON.parse(text) as Omit<VatResult, "match"> & { match?: VatResult["match"] };
  return { ...stored, match: stored.match ?? null };
}

/**
 * A stored IBAN result; those stored before national checks existed have none: no check was judged, so
 * `not_applicable` and no warning.
 */
function storedIbanResult(text: string): IbanResult {
  const stored = JSON.parse(text) as Omit<IbanResult, "national_check" | "warning"> &
    Partial<Pick<IbanResult, "national_check" | "warning">>;
  return {
    ...stored,
    national_check: stored.national_check ?? "not_applicable",
    warning: stored.warning ?? null,
  };
}

function toItem(row: ItemRow): BatchItem {
  return {
    index: row.idx,
    reference: row.reference,
    status: row.status,
    ...(row.vat_result !== null && { vat: storedVatResult(row.vat_result) }),
    ...(row.iban_result !== null && { iban: storedIbanResult(row.iban_result) }),
    billable: row.billable,
    error: row.error === null ? null : (JSON.parse(row.error) as ApiErrorBody),
  };
}

/**
 * Cancels a key's batch: its items not finished yet become `cancelled` (an item being worked
 * on is not finished, and not billed, when its worker comes back). A batch already finished
 * is returned as it is. Null for another key's or an unknown batch. `afterCancel` runs in the
 * same transaction with the cancelled batch (for its webhook).
 */
export async function cancelBatch(
  database: Database,
  keyId: string,
  id: string,
  afterCancel: (rows: Rows, batch: Batch) => Promise<void>,
): Promise<Batch | null> {
  return database.transaction(async (rows) => {
    const [locked] = await rows<{ status: BatchStatus; total: number }>(
      sql`SELECT status, total FROM batches WHERE id = ${id} AND key_id = ${keyId} FOR UPDATE`,
    );
    if (!locked) return null;
    if (locked.status === "queued" || locked.status === "running") {
      await rows(sql`UPDATE batches SET status = 'cancelled', completed_at = now() WHERE id = ${id}`);
      for (let start = 0; start < locked.total; start += ROWS_PER_STATEMENT) {
        await nextTurn();
        await rows(sql`
          UPDATE batch_items SET status = 'cancelled', lease_token = NULL, lease_until = NULL
          WHERE batch_id = ${id} AND status = 'pending'
            AND idx >= ${start} AND idx < ${start + ROWS_PER_STATEMENT}`);
      }
      const cancelled = (await findBatch(rows, keyId, id)) as Batch;
      await afterCancel(rows, cancelled);
    }
    return findBatch(rows, keyId, id);
  });
}

/** Deletes batches (with their items and webhook messages) finished more than `days` ago. */
export async function sweepFinishedBatches(database: Database, days: number): Promise<void> {
  await database.rows(sql`
    DELETE FROM batches
    WHERE status IN ('completed', 'cancelled') AND completed_at < now() - ${days} * interval '1 day'`);
}
