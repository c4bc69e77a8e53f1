import {
  checkText,
  csvListItems,
  jsonListBody,
  type ListShape,
  listBodyText,
  webhookField,
} from "../batches/input.ts";
import { REFERENCE_MAX_LENGTH } from "../batches/schema.ts";
import { ValidateRequestSchema } from "../http/schemas.ts";
import { ApiError } from "../kernel/errors.ts";
import { readMatchRequest } from "../matching/request.ts";
import type { MatchRequest } from "../matching/schema.ts";
import type { EnabledAuthorities } from "../vat/authorities.ts";
import { checkVatFormat } from "../vat/format/check-vat-format.ts";
import { uncheckableReason } from "../vat/service.ts";
import { INTERVAL_DAYS, type MonitorStatus, type MonitorUpdate } from "./schema.ts";

/** A number to watch, checked: what a monitor is created from. */
export type MonitorInput = {
  /** Normalized, with its prefix. */
  vatNumber: string;
  reference: string | null;
  match: MatchRequest | null;
  intervalDays: number;
};

/** What POST /monitors asks for: one number (answered with one monitor) or a list. */
export type MonitorRequest = {
  items: MonitorInput[];
  list: boolean;
  webhookUrl: string | undefined;
};

const VAT_MAX_LENGTH = ValidateRequestSchema.properties.vat.maxLength as number;

const refuse = (message: string) => new ApiError("invalid_request", message);

const named = (where: string, field: string) => `${where === "" ? "" : `${where}: `}\`${field}\``;

/** `interval_days`: a whole number of days within bounds; in CSV (`fromText`), its digits. */
function checkInterval(given: unknown, where: string, fromText = false): number {
  const value =
    fromText && typeof given === "string" && /^\s*\d{1,3}\s*$/.test(given) ? Number(given) : given;
  if (
    typeof value !== "number" ||
    !Number.isInteger(value) ||
    value < INTERVAL_DAYS.minimum ||
    value > INTERVAL_DAYS.maximum
  ) {
    throw refuse(
      `${named(where, "interval_days")} must be a whole number of days from ${INTERVAL_DAYS.minimum} to ${INTERVAL_DAYS.maximum}`,
    );
  }
  return value;
}

/**
 * Reads one number to watch. A number that is malformed, or that no authority can be asked
 * about here, is refused: a monitor of it could never be answered. `where` names the item
 * ("item 3", "item 3 (row 5)"; empty for a single number). In CSV, an empty cell is no value
 * and `interval_days` is read from its digits.
 */
function checkItem(value: unknown, where: string, enabled: EnabledAuthorities, csv: boolean): MonitorInput {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw refuse(`${where} must be an object with a \`vat\` string`);
  }
  const fields = value as Record<string, unknown>;
  const given = (field: string) =>
    fields[field] === undefined || (csv && fields[field] === "") ? undefined : fields[field];
  const vat = given("vat");
  if (vat === undefined) throw refuse(`${named(where, "vat")} is required: the number to watch`);
  const format = checkVatFormat(checkText(vat, "vat", where, VAT_MAX_LENGTH));
  if (!format.ok) throw refuse(`${named(where, "vat")} is not a well-formed VAT number: ${format.message}`);
  const uncheckable = uncheckableReason(format, enabled);
  if (uncheckable !== null) throw refuse(`${named(where, "vat")} cannot be watched: ${uncheckable}`);
  const reference = given("reference");
  const interval = given("interval_days");
  return {
    vatNumber: format.vatNumber,
    reference:
      reference === undefined ? null : checkText(reference, "reference", where, REFERENCE_MAX_LENGTH),
    match: fields.match === undefined ? null : readMatchRequest(fields.match, where),
    intervalDays: interval === undefined ? INTERVAL_DAYS.default : checkInterval(interval, where, csv),
  };
}

const MONITOR_LIST = {
  noun: "watch list",
  columns: ["vat", "reference", "interval_days"],
  required: { columns: ["vat"], refusal: "the CSV header row must name a `vat` column" },
} as const;

/**
 * What a POST /monitors body asks for: JSON with `vat` (one number) or `items` (a list), or CSV
 * when the Content-Type says `text/csv` (a list). Throws ApiError `invalid_request` naming the
 * problem (for an item of a list, its index), so nothing is created from a body with any
 * problem in it.
 */
export function parseMonitorBody(
  bytes: Uint8Array,
  contentType: string | null,
  options: { maxItems: number; enabled: EnabledAuthorities },
): MonitorRequest {
  const { text, csv } = listBodyText(bytes, contentType);
  const list: ListShape = { ...MONITOR_LIST, maxItems: options.maxItems };
  if (csv) {
    const items = csvListItems(text, list, (fields, where) =>
      checkItem(fields, where, options.enabled, true),
    );
    return { items, list: true, webhookUrl: undefined };
  }
  let single: Record<string, unknown> | null = null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value) && !("items" in value))
      single = value as Record<string, unknown>;
  } catch {
    throw refuse("the body is not valid JSON");
  }
  if (single !== null) {
    const webhook = webhookField(single);
    return {
      items: [checkItem(single, "", options.enabled, false)],
      list: false,
      webhookUrl: webhook.webhook_url,
    };
  }
  const body = jsonListBody(text, list);
  if (body.vat !== undefined) throw refuse("send `vat` for one number or `items` for a list, not both");
  return {
    items: body.items.map((item, index) => checkItem(item, `item ${index}`, options.enabled, false)),
    list: true,
    webhookUrl: webhookField(body).webhook_url,
  };
}

const UPDATABLE = ["interval_days", "reference", "webhook_url", "status"] as const;

/** A PATCH /monitors/{id} body: at least one of the fields it may change, each checked. */
export function readMonitorUpdate(body: Record<string, unknown>): MonitorUpdate {
  const update: MonitorUpdate = {};
  if (body.interval_days !== undefined) update.interval_days = checkInterval(body.interval_days, "");
  if (body.reference !== undefined)
    update.reference =
      body.reference === null ? null : checkText(body.reference, "reference", "", REFERENCE_MAX_LENGTH);
  if (body.webhook_url !== undefined) {
    if (body.webhook_url !== null && typeof body.webhook_url !== "string")
      throw refuse("`webhook_url` must be a string, or null to remove it");
    update.webhook_url = body.webhook_url;
  }
  if (body.status !== undefined) {
    if (body.status !== "active" && body.status !== "paused")
      throw refuse("`status` must be `active` or `paused`");
    update.status = body.status satisfies MonitorStatus;
  }
  if (Object.keys(update).length === 0)
    throw refuse(`send at least one of ${UPDATABLE.map((field) => `\`${field}\``).join(", ")}`);
  return update;
}
