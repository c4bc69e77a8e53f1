import { sql } from "drizzle-orm";
import { type Static, t } from "elysia";
import { Batcher, ItemFailure } from "../kernel/batcher.ts";
import { type Database, jsonb, type Rows } from "../kernel/db.ts";
import { stringEnum } from "../kernel/enum-schema.ts";
import { MatchRecordSchema, type MatchRequest } from "../matching/schema.ts";
import { AUTHORITY_SOURCES } from "../vat/authorities.ts";
import type { VatResult } from "../vat/schema.ts";

export const ValidationRecordSchema = t.Object(
  {
    request_id: t.String({
      description: "the request_id of the /validate answer, or `{batch_id}.{index}` for a batch item",
    }),
    key_id: t.String(),
    vat_number: t.String(),
    valid: t.Boolean(),
    name: t.Union([t.String(), t.Null()], { description: "registered name, as the authority gave it" }),
    address: t.Union([t.String(), t.Null()], { description: "registered address, as the authority gave it" }),
    checked_at: t.String({ format: "date-time", description: "when the authority answered" }),
    consultation_number: t.Union([t.String(), t.Null()], {
      description:
        "the authority's consultation reference; present when the deployment sends its requester VAT number",
    }),
    source: stringEnum(AUTHORITY_SOURCES),
    match: t.Union([MatchRecordSchema, t.Null()], {
      description: "the details sent to be matched and how they compared; null when none were sent",
    }),
  },
  {
    title: "ValidationRecord",
    description: "the stored proof of one VAT check the authority answered: what it said, and when",
  },
);
export type ValidationRecord = Static<typeof ValidationRecordSchema>;

/**
 * The record of a VAT answer, when the authority gave it for this request: a fresh verdict,
 * not a cache hit or a stale copy (those repeat the `checked_at` and consultation number of the
 * check they come from, whose record is that check's).
 */
export function recordOf(
  requestId: string,
  keyId: string,
  vat: VatResult,
  match: MatchRequest | null,
): ValidationRecord | null {
  if (vat.cached || vat.valid === null || vat.vat_number === null || vat.checked_at === null) return null;
  if (vat.source === null || vat.source === "syntax") return null;
  return {
    request_id: requestId,
    key_id: keyId,
    vat_number: vat.vat_number,
    valid: vat.valid,
    name: vat.name,
    address: vat.address,
    checked_at: vat.checked_at,
    consultation_number: vat.consultation_number,
    source: vat.source,
    match: match === null || vat.match === null ? null : { sent: match, result: vat.match },
  };
}

/**
 * The last of the records with one (key, request id), in the order of their last occurrence:
 * one statement may write a row once (a second write of it fails the whole statement), and
 * the later check is the one an id names.
 */
function latestPerId(records: ValidationRecord[]): ValidationRecord[] {
  const latest = new Map<string, ValidationRecord>();
  for (const record of records) {
    const id = `${record.key_id} ${record.request_id}`;
    latest.delete(id);
    latest.set(id, record);
  }
  return [...latest.values()];
}

/**
 * Writes records, in a transaction of the caller's or on their own. A request id is the
 * caller's to choose (a proxy's, kept for its logs): records are per key, and a second check
 * under the same id replaces the first, so an id always names its latest check.
 */
export async function insertRecords(rows: Rows, records: ValidationRecord[]): Promise<void> {
  if (records.length === 0) return;
  await rows(sql`
    INSERT INTO validation_records
      (request_id, key_id, vat_number, valid, name, address, checked_at, consultation_number, source, match)
    SELECT d.request_id, d.key_id, d.vat_number, d.valid, d.name, d.address, d.checked_at::timestamptz,
      d.consultation_number, d.source, d.match
    FROM jsonb_to_recordset(${jsonb(latestPerId(records))}::jsonb) AS d(
      request_id text, key_id text, vat_number text, valid boolean, name text, address text,
      checked_at text, consultation_number text, source text, match jsonb)
    ON CONFLICT (key_id, request_id) DO UPDATE SET vat_number = EXCLUDED.vat_number, valid = EXCLUDED.valid,
      name = EXCLUDED.name, address = EXCLUDED.address, checked_at = EXCLUDED.checked_at,
      consultation_number = EXCLUDED.consultation_number, source = EXCLUDED.source, match = EXCLUDED.match,
      created_at = now()`);
}

const RECORD_COLUMNS = sql`request_id, key_id, vat_number, valid, name, address,
  to_char(checked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS checked_at,
  consultation_number, source, match::text AS match`;

/** The validation records of the checks the authority answered, and their retention. */
export class ValidationRecords {
  private readonly writes: Batcher<ValidationRecord, null>;

  constructor(private readonly database: Database) {
    this.writes = new Batcher(async (records) => {
      try {
        await insertRecords(database.rows, records);
        return records.map(() => null);
      } catch {
        // The records of a flush come from many keys: one the database refuses must not cost
        // the others theirs, so each is written on its own, in the order they came.
        const outcomes: (null | ItemFailure)[] = [];
        for (const record of records) {
          outcomes.push(
            await insertRecords(database.rows, [record]).then(
              () => null,
              (error: unknown) => new ItemFailure(error),
            ),
          );
        }
        return outcomes;
      }
    });
  }

  /** Stores one record; concurrent ones share a statement. */
  async add(record: ValidationRecord): Promise<void> {
    await this.writes.submit(record);
  }

  /** A key's own record; null for another key's or an unknown id. */
  async find(keyId: string, requestId: string): Promise<ValidationRecord | null> {
    // jsonb read as text and parsed here: the two drivers hand jsonb back differently.
    const [row] = await this.database.rows<Omit<ValidationRecord, "match"> & { match: string | null }>(sql`
      SELECT ${RECORD_COLUMNS} FROM validation_records WHERE request_id = ${requestId} AND key_id = ${keyId}`);
    if (!row) return null;
    return {
      ...row,
      match: row.match === null ? null : (JSON.parse(row.match) as ValidationRecord["match"]),
    };
  }

  /** Deletes records older than `days`. */
  async sweep(days: number): Promise<void> {
    await this.database.rows(
      sql`DELETE FROM validation_records WHERE created_at < now() - ${days} * interval '1 day'`,
    );
  }

  idle(): Promise<void> {
    return this.writes.idle();
  }
}
