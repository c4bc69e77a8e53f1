import { ValidateRequestSchema } from "../http/schemas.ts";
import { ApiError } from "../kernel/errors.ts";
import { readMatchRequest } from "../matching/request.ts";
import { MATCH_FIELDS, type MatchField } from "../matching/schema.ts";
import { CsvError, CsvLimitError, csvRecords } from "./csv.ts";
import { type BatchItemInput, type BatchRequest, REFERENCE_MAX_LENGTH } from "./schema.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

const FIELDS = ["vat", "iban", "reference"] as const;
type Field = (typeof FIELDS)[number];

const MAX_LENGTH: Record<Field, number> = {
  vat: ValidateRequestSchema.properties.vat.maxLength as number,
  iban: ValidateRequestSchema.properties.iban.maxLength as number,
  reference: REFERENCE_MAX_LENGTH,
};

const refuse = (message: string) => new ApiError("invalid_request", message);

/**
 * One item checked by the /validate input rules (`vat` and/or `iban`, strings within their
 * lengths) plus its reference; `where` names it in a refusal ("item 3", "item 3 (row 5)"). An
 * empty CSV cell is no value; in JSON, as in /validate, an empty string is one.
 */
function checkItem(value: unknown, where: string, emptyIsAbsent: boolean): BatchItemInput {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw refuse(`${where} must be an object with a \`vat\` and/or an \`iban\` string`);
  }
  const fields = value as Record<string, unknown>;
  const item: BatchItemInput = {};
  for (const field of FIELDS) {
    const given = fields[field];
    if (given === undefined || (emptyIsAbsent && given === "")) continue;
    if (typeof given !== "string") throw refuse(`${where}: \`${field}\` must be a string`);
    if (given.includes("\u0000")) throw refuse(`${where}: \`${field}\` must not contain a NUL character`);
    // Text the database can hold is Unicode: half of a UTF-16 pair alone (`"\ud800"` in JSON) is not.
    if (!given.isWellFormed())
      throw refuse(`${where}: \`${field}\` must not contain a lone UTF-16 surrogate (\\ud800–\\udfff)`);
    if (given.length > MAX_LENGTH[field]) {
      throw refuse(
        `${where}: \`${field}\` must be at most ${MAX_LENGTH[field]} characters, got ${given.length}`,
      );
    }
    item[field] = given;
  }
  if (item.vat === undefined && item.iban === undefined)
    throw refuse(`${where}: send \`vat\`, \`iban\`, or both`);
  if (fields.match !== undefined) {
    if (item.vat === undefined) {
      throw refuse(`${where}: \`match\` is compared with a VAT number's record: send \`vat\` with it`);
    }
    item.match = readMatchRequest(fields.match, where);
  }
  return item;
}

function checkCount(count: number, maxItems: number): void {
  if (count === 0) throw refuse("the batch has no items");
  if (count > maxItems) throw refuse(`a batch holds at most ${maxItems} items, got ${count}`);
}

/** `{"items": [...], "webhook_url"?: "..."}`. */
function fromJson(text: string, maxItems: number): BatchRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse("the body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw refuse("the body must be a JSON object with an `items` array");
  }
  const body = value as Record<string, unknown>;
  if (!Array.isArray(body.items)) throw refuse("`items` must be an array of items");
  checkCount(body.items.length, maxItems);
  const webhook = body.webhook_url;
  if (webhook !== undefined && webhook !== null && typeof webhook !== "string") {
    throw refuse("`webhook_url` must be a string");
  }
  return {
    items: body.items.map((item, index) => checkItem(item, `item ${index}`, false)),
    ...(typeof webhook === "string" && { webhook_url: webhook }),
  };
}

/**
 * What one CSV record may hold: a few dozen columns (a customer list exported from an ERP has
 * its own beside ours), and room for all of them. Reading a body is linear in its bytes
 * within these bounds; without them a header of a million empty names made every row cost a
 * million steps.
 */
export const CSV_LIMITS = { maxFields: 64, maxRecordLength: 8192 } as const;

/** CSV columns that make up an item's `match`: `match_name` is `match.name`, and so on. */
const MATCH_COLUMNS = new Map<string, MatchField>(MATCH_FIELDS.map((field) => [`match_${field}`, field]));
type Column = Field | `match_${MatchField}`;

const isColumn = (name: string): name is Column =>
  (FIELDS as readonly string[]).includes(name) || MATCH_COLUMNS.has(name);

/** Where each of our columns is in the header; a column named twice is ambiguous. */
function columnsOf(header: string[]): Partial<Record<Column, number>> {
  const positions: Partial<Record<Column, number>> = {};
  header.forEach((name, position) => {
    const column = name.trim().toLowerCase();
    if (!isColumn(column)) return;
    if (positions[column] !== undefined) {
      throw refuse(`the CSV header row names \`${column}\` twice: which column is meant?`);
    }
    positions[column] = position;
  });
  if (positions.vat === undefined && positions.iban === undefined) {
    throw refuse("the CSV header row must name a `vat` or an `iban` column");
  }
  return positions;
}

/**
 * A header row naming any of `vat`, `iban`, `reference` and the `match_*` columns (other columns
 * are ignored), then one row per item. Our columns are found once, in the header; each row is
 * read for them alone. Empty cells are values not given.
 */
function fromCsv(text: string, maxItems: number): BatchRequest {
  const records = csvRecords(text, CSV_LIMITS);
  try {
    const header = records.next();
    if (header.done)
      throw refuse("the CSV body is empty: send a header row naming `vat`, `iban` and/or `reference`");
    const positions = Object.entries(columnsOf(header.value)) as [Column, number][];
    const items: BatchItemInput[] = [];
    for (const row of records) {
      if (items.length === maxItems)
        throw refuse(`a batch holds at most ${maxItems} items; the CSV body has more rows`);
      const fields: Record<string, unknown> = {};
      const match: Record<string, string> = {};
      for (const [column, position] of positions) {
        const matchField = MATCH_COLUMNS.get(column);
        const cell = row[position];
        if (matchField === undefined) fields[column] = cell;
        else if (cell !== undefined && cell !== "") match[matchField] = cell;
      }
      if (Object.keys(match).length > 0) fields.match = match;
      items.push(checkItem(fields, `item ${items.length} (row ${items.length + 2})`, true));
    }
    checkCount(items.length, maxItems);
    return { items };
  } catch (error) {
    if (error instanceof CsvLimitError) throw refuse(`the CSV body is refused: ${error.message}`);
    if (error instanceof CsvError) throw refuse(`the CSV body is malformed: ${error.message}`);
    throw error;
  }
}

/**
 * The batch a POST /batches body describes: JSON, or CSV when the Content-Type says
 * `text/csv`. Throws ApiError `invalid_request` naming the problem (for an item, its index), so
 * nothing is created from a body with any problem in it.
 */
export function parseBatchBody(
  bytes: Uint8Array,
  contentType: string | null,
  maxItems: number,
): BatchRequest {
  if (bytes.byteLength === 0) throw refuse("a body is required: JSON with `items`, or CSV");
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw refuse("the body is not valid UTF-8");
  }
  const csv = /^\s*text\/csv\b/i.test(contentType ?? "");
  return csv ? fromCsv(text, maxItems) : fromJson(text, maxItems);
}
