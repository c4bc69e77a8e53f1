import { ValidateRequestSchema } from "../http/schemas.ts";
import { ApiError } from "../kernel/errors.ts";
import { CsvError, parseCsv } from "./csv.ts";
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
    if (given.length > MAX_LENGTH[field]) {
      throw refuse(
        `${where}: \`${field}\` must be at most ${MAX_LENGTH[field]} characters, got ${given.length}`,
      );
    }
    item[field] = given;
  }
  if (item.vat === undefined && item.iban === undefined)
    throw refuse(`${where}: send \`vat\`, \`iban\`, or both`);
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

/** A header row naming any of `vat`, `iban`, `reference` (other columns are ignored), then one row per item. */
function fromCsv(text: string, maxItems: number): BatchRequest {
  let records: string[][];
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvError) throw refuse(`the CSV body is malformed: ${error.message}`);
    throw error;
  }
  const [header, ...rows] = records;
  if (!header)
    throw refuse("the CSV body is empty: send a header row naming `vat`, `iban` and/or `reference`");
  const columns = header.map((name) => name.trim().toLowerCase());
  if (!columns.includes("vat") && !columns.includes("iban")) {
    throw refuse("the CSV header row must name a `vat` or an `iban` column");
  }
  checkCount(rows.length, maxItems);
  return {
    items: rows.map((row, index) => {
      const fields: Record<string, string> = {};
      columns.forEach((column, position) => {
        if ((FIELDS as readonly string[]).includes(column) && row[position] !== undefined) {
          fields[column] = row[position] as string;
        }
      });
      return checkItem(fields, `item ${index} (row ${index + 2})`, true);
    }),
  };
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
