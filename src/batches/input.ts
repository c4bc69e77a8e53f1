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
 * A text field of a list's item: a string the database can hold (no NUL, no lone UTF-16
 * surrogate) of at most `maxLength` characters; `where` names the item in a refusal.
 */
export function checkText(given: unknown, field: string, where: string, maxLength: number): string {
  const name = `${where === "" ? "" : `${where}: `}\`${field}\``;
  if (typeof given !== "string") throw refuse(`${name} must be a string`);
  if (given.includes("\u0000")) throw refuse(`${name} must not contain a NUL character`);
  // Text the database can hold is Unicode: half of a UTF-16 pair alone (`"\ud800"` in JSON) is not.
  if (!given.isWellFormed())
    throw refuse(`${name} must not contain a lone UTF-16 surrogate (\\ud800–\\udfff)`);
  if (given.length > maxLength)
    throw refuse(`${name} must be at most ${maxLength} characters, got ${given.length}`);
  return given;
}

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
    item[field] = checkText(given, field, where, MAX_LENGTH[field]);
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

/** What a list of items (a batch, a watch list) is, for reading it and for its refusals. */
export type ListShape = {
  /** The list in messages: "batch" ("a batch holds at most…", "the batch has no items"). */
  noun: string;
  /** The CSV columns of an item besides the `match_*` ones; other columns are ignored. */
  columns: readonly string[];
  /** Of those, the header row must name at least one; else this refusal. */
  required: { columns: readonly string[]; refusal: string };
  maxItems: number;
};

/** The batches' list: `vat`, `iban`, `reference` and `match_*` columns. */
const BATCH_LIST = {
  noun: "batch",
  columns: FIELDS,
  required: { columns: ["vat", "iban"], refusal: "the CSV header row must name a `vat` or an `iban` column" },
} as const;

/** An item count within the list's bounds. */
export function checkCount(count: number, list: Pick<ListShape, "noun" | "maxItems">): void {
  if (count === 0) throw refuse(`the ${list.noun} has no items`);
  if (count > list.maxItems)
    throw refuse(`a ${list.noun} holds at most ${list.maxItems} items, got ${count}`);
}

/** The JSON object a list body holds, with its `items` array within the list's bounds. */
export function jsonListBody(
  text: string,
  list: Pick<ListShape, "noun" | "maxItems">,
): Record<string, unknown> & {
  items: unknown[];
} {
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
  checkCount(body.items.length, list);
  return body as Record<string, unknown> & { items: unknown[] };
}

/** `{"items": [...], "webhook_url"?: "..."}`. */
function fromJson(text: string, maxItems: number): BatchRequest {
  const body = jsonListBody(text, { noun: BATCH_LIST.noun, maxItems });
  return {
    items: body.items.map((item, index) => checkItem(item, `item ${index}`, false)),
    ...webhookField(body),
  };
}

/** The optional `webhook_url` of a JSON body, a string when given (null counts as not given). */
export function webhookField(body: Record<string, unknown>): { webhook_url?: string } {
  const webhook = body.webhook_url;
  if (webhook !== undefined && webhook !== null && typeof webhook !== "string") {
    throw refuse("`webhook_url` must be a string");
  }
  return typeof webhook === "string" ? { webhook_url: webhook } : {};
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

/** `a`, `b` and/or `c`. */
const namesOf = (columns: readonly string[]) => {
  const quoted = columns.map((column) => `\`${column}\``);
  return quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} and/or ${quoted.at(-1)}`;
};

/** Where each of our columns is in the header; a column named twice is ambiguous. */
function columnsOf(header: string[], list: ListShape): Map<string, number> {
  const positions = new Map<string, number>();
  header.forEach((name, position) => {
    const column = name.trim().toLowerCase();
    if (!list.columns.includes(column) && !MATCH_COLUMNS.has(column)) return;
    if (positions.has(column)) {
      throw refuse(`the CSV header row names \`${column}\` twice: which column is meant?`);
    }
    positions.set(column, position);
  });
  if (!list.required.columns.some((column) => positions.has(column))) throw refuse(list.required.refusal);
  return positions;
}

/**
 * The items of a CSV list: a header row naming any of the list's columns and the `match_*`
 * columns (other columns are ignored), then one row per item. Our columns are found once, in
 * the header; each row is read for them alone, and its fields (`match_*` cells gathered into
 * `match`; empty cells left out of it) given to `check` with where it is ("item 3 (row 5)").
 */
export function csvListItems<T>(
  text: string,
  list: ListShape,
  check: (fields: Record<string, unknown>, where: string) => T,
): T[] {
  const records = csvRecords(text, CSV_LIMITS);
  try {
    const header = records.next();
    if (header.done) throw refuse(`the CSV body is empty: send a header row naming ${namesOf(list.columns)}`);
    const positions = [...columnsOf(header.value, list)];
    const items: T[] = [];
    for (const row of records) {
      if (items.length === list.maxItems)
        throw refuse(`a ${list.noun} holds at most ${list.maxItems} items; the CSV body has more rows`);
      const fields: Record<string, unknown> = {};
      const match: Record<string, string> = {};
      for (const [column, position] of positions) {
        const matchField = MATCH_COLUMNS.get(column);
        const cell = row[position];
        if (matchField === undefined) fields[column] = cell;
        else if (cell !== undefined && cell !== "") match[matchField] = cell;
      }
      if (Object.keys(match).length > 0) fields.match = match;
      items.push(check(fields, `item ${items.length} (row ${items.length + 2})`));
    }
    checkCount(items.length, list);
    return items;
  } catch (error) {
    if (error instanceof CsvLimitError) throw refuse(`the CSV body is refused: ${error.message}`);
    if (error instanceof CsvError) throw refuse(`the CSV body is malformed: ${error.message}`);
    throw error;
  }
}

/** A list body as text: not empty, valid UTF-8; CSV when the Content-Type says `text/csv`. */
export function listBodyText(bytes: Uint8Array, contentType: string | null): { text: string; csv: boolean } {
  if (bytes.byteLength === 0) throw refuse("a body is required: JSON with `items`, or CSV");
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw refuse("the body is not valid UTF-8");
  }
  return { text, csv: /^\s*text\/csv\b/i.test(contentType ?? "") };
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
  const { text, csv } = listBodyText(bytes, contentType);
  if (!csv) return fromJson(text, maxItems);
  return {
    items: csvListItems(text, { ...BATCH_LIST, maxItems }, (fields, where) => checkItem(fields, where, true)),
  };
}
