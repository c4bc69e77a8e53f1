import { Elysia, t } from "elysia";
import type { BatchLimits, Plan } from "../accounts/plans.ts";
import type { Config } from "../config.ts";
import { readBoundedBody } from "../http/body.ts";
import { directWork } from "../http/direct-work.ts";
import {
  errorExample,
  errorResponses,
  HEADERS,
  jsonExample,
  LIST_BODY_TOO_LARGE,
  WEBHOOK_LOOKUP_UNAVAILABLE,
  type WebhookDoc,
} from "../http/docs.ts";
import {
  BATCH_CANCELLED,
  BATCH_COMPLETED,
  BATCH_CSV,
  BATCH_ITEMS_PAGE,
  BATCH_QUEUED,
  BATCH_REQUEST,
} from "../http/examples.ts";
import { models } from "../http/models.ts";
import { BAD_PAGE, PAGE_QUERY, parseCursor, parseLimit } from "../http/paging.ts";
import type { Idempotency } from "../idempotency/plugin.ts";
import type { Database } from "../kernel/db.ts";
import { ApiError } from "../kernel/errors.ts";
import { queueBatchWebhook } from "../webhooks/messages.ts";
import { acceptWebhookUrl, type WebhookLookup, type WebhookPolicy } from "../webhooks/target.ts";
import { csvRecord } from "./csv.ts";
import { CSV_LIMITS, parseBatchBody } from "./input.ts";
import { BatchIdSchema, type BatchItem, type BatchItemsPage } from "./schema.ts";
import { cancelBatch, createBatch, findBatch, itemsPage } from "./store.ts";
import { checkBatchSize } from "./volume.ts";

export type BatchRoutesDeps = {
  database: Database;
  config: Pick<Config, "BATCH_MAX_ITEMS" | "BATCH_MAX_BYTES">;
  webhookPolicy: WebhookPolicy;
  /** How webhook hosts are looked up when a batch is created. */
  webhookLookup: WebhookLookup;
  /** Tells this instance's workers a batch is waiting. */
  wake(): void;
};

/** The events a batch's `webhook_url` receives. */
export const BATCH_WEBHOOKS: WebhookDoc[] = [
  {
    type: "batch.completed",
    summary: "A batch completed",
    description: "Every item has its answer: read them with GET /batches/{id}/items.",
    tag: "Batches",
    model: "BatchEvent",
    example: { type: "batch.completed", data: BATCH_COMPLETED },
  },
  {
    type: "batch.cancelled",
    summary: "A batch was cancelled",
    description: "DELETE /batches/{id} stopped it; items not yet done are `cancelled`, unbilled.",
    tag: "Batches",
    model: "BatchEvent",
    example: { type: "batch.cancelled", data: { ...BATCH_CANCELLED, webhook: BATCH_COMPLETED.webhook } },
  },
];

const BATCHES = directWork({
  noun: "batch",
  plural: "batches",
  tag: "Batches",
  model: "Batch",
  idSchema: BatchIdSchema,
  exampleId: BATCH_QUEUED.id,
});

/** The batch limits of a direct key's plan; a plan without batches is refused like the gateway's. */
function batchLimitsOf(plan: Plan): BatchLimits {
  if (!plan.batches) throw new ApiError("forbidden", `the ${plan.id} plan does not include batches`);
  return plan.batches;
}

/** The columns of an item as a CSV row: its fields, then each component's, flattened. */
const CSV_COLUMNS = [
  "index",
  "reference",
  "status",
  "billable",
  "error_code",
  "error_message",
  "vat_input",
  "vat_valid",
  "vat_number",
  "vat_country_code",
  "vat_name",
  "vat_address",
  "vat_source",
  "vat_cached",
  "vat_stale",
  "vat_checked_at",
  "vat_consultation_number",
  "vat_error_code",
  "vat_warning_code",
  "vat_match",
  "vat_match_name",
  "vat_match_street",
  "vat_match_postcode",
  "vat_match_city",
  "vat_match_company_type",
  "iban_input",
  "iban_valid",
  "iban",
  "iban_country_code",
  "iban_bank_code",
  "iban_branch_code",
  "iban_account_number",
  "iban_sepa",
  "iban_bank_name",
  "iban_bic",
  "iban_national_check",
  "iban_error_code",
  "iban_warning_code",
] as const;

function csvRow(item: BatchItem): string {
  const { vat, iban } = item;
  return csvRecord([
    item.index,
    item.reference,
    item.status,
    item.billable,
    item.error?.code ?? null,
    item.error?.message ?? null,
    vat?.input ?? null,
    vat?.valid ?? null,
    vat?.vat_number ?? null,
    vat?.country_code ?? null,
    vat?.name ?? null,
    vat?.address ?? null,
    vat?.source ?? null,
    vat?.cached ?? null,
    vat?.stale ?? null,
    vat?.checked_at ?? null,
    vat?.consultation_number ?? null,
    vat?.error?.code ?? null,
    vat?.warning?.code ?? null,
    vat?.match?.overall ?? null,
    vat?.match?.name?.result ?? null,
    vat?.match?.street?.result ?? null,
    vat?.match?.postcode?.result ?? null,
    vat?.match?.city?.result ?? null,
    vat?.match?.company_type?.result ?? null,
    iban?.input ?? null,
    iban?.valid ?? null,
    iban?.iban ?? null,
    iban?.country_code ?? null,
    iban?.bank_code ?? null,
    iban?.branch_code ?? null,
    iban?.account_number ?? null,
    iban?.sepa ?? null,
    iban?.bank?.name ?? null,
    iban?.bank?.bic ?? null,
    iban?.national_check ?? null,
    iban?.error?.code ?? null,
    iban?.warning?.code ?? null,
  ]);
}

/**
 * The batch routes: create a batch (JSON or CSV), read it, page through its items (JSON or
 * CSV), cancel it. Every route needs a key, and a key sees its own batches only: another
 * key's batch is answered exactly as an unknown one.
 */
export function batchRoutes(deps: BatchRoutesDeps, keyed: Idempotency) {
  const checkWebhook = async (raw: string | undefined): Promise<string | null> =>
    raw === undefined ? null : acceptWebhookUrl(raw, deps.webhookPolicy, deps.webhookLookup);

  return new Elysia({ name: "batches" })
    .model(models)
    .use(keyed)
    .post(
      "/batches",
      async ({ body, caller, set }) => {
        const { keyId, plan } = BATCHES.account(caller);
        const limits = batchLimitsOf(plan);
        checkBatchSize(body.items.length, limits, plan.id);
        const webhookUrl = await checkWebhook(body.webhook_url);
        const batch = await createBatch(deps.database, {
          keyId,
          items: body.items,
          webhookUrl,
          plan: { id: plan.id, limits },
        });
        deps.wake();
        set.status = 202;
        set.headers.location = `/batches/${batch.id}`;
        return batch;
      },
      {
        idempotent: true,
        parse: async ({ request }) =>
          parseBatchBody(
            await readBoundedBody(request, deps.config.BATCH_MAX_BYTES),
            request.headers.get("content-type"),
            deps.config.BATCH_MAX_ITEMS,
          ),
        body: "BatchRequest",
        response: { 202: "Batch", ...errorResponses(400, 401, 403, 413, 429, 503) },
        detail: {
          summary: "Validate a batch of VAT numbers and IBANs in the background",
          tags: ["Batches"],
          description:
            "JSON `{items, webhook_url}`, or CSV (`Content-Type: text/csv`) with a header row naming any of `vat`, `iban`, `reference`. Each item follows the /validate input rules. Counts as one request for the per-minute limit; each item is billed by the /validate rules when it is processed, and an item whose VAT number an earlier item of the batch has (with the same `match` details, for Spain, which compares them itself) is answered from that item's answer as a cache hit, unbilled, its own `match` compared with it.",
          security: [{ ApiKey: [] }],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/BatchRequest" },
                example: BATCH_REQUEST,
              },
              "text/csv": {
                schema: {
                  type: "string",
                  description: `a header row naming any of vat, iban, reference, then one row per item (RFC 4180); at most ${CSV_LIMITS.maxFields} fields and ${CSV_LIMITS.maxRecordLength} characters a record`,
                },
                example: BATCH_CSV,
              },
            },
          },
          responses: {
            202: {
              description: "Accepted: the batch, queued; `Location` is its address",
              headers: {
                ...HEADERS.rateLimit,
                Location: { description: "/batches/{id}", schema: { type: "string" } },
              },
              ...jsonExample(BATCH_QUEUED),
            },
            400: {
              description:
                "`invalid_request`: a malformed body, no items, too many (or more than the plan's batch items a day), a CSV record over its limits, an item breaking the input rules (named by its index), or a refused `webhook_url`; nothing is created",
              ...errorExample("invalid_request", "item 1: send `vat`, `iban`, or both"),
            },
            ...BATCHES.routeResponses,
            503: WEBHOOK_LOOKUP_UNAVAILABLE,
            429: {
              description:
                "`rate_limited`: the per-minute limit, or the plan's batches queued or running at once, or its batch items a day (UTC); the message names which, and `Retry-After` when it frees",
              headers: BATCHES.routeResponses[429].headers,
              ...errorExample(
                "rate_limited",
                "the free plan allows 2 batches queued or running at once; one frees when a batch of this key completes or is cancelled (DELETE /batches/{id})",
              ),
            },
            413: LIST_BODY_TOO_LARGE,
          },
        },
      },
    )
    .get(
      "/batches/:id",
      async ({ params, caller }) => {
        const batch = await findBatch(deps.database.rows, BATCHES.account(caller).keyId, params.id);
        if (!batch) throw BATCHES.notFound(params.id);
        return batch;
      },
      BATCHES.oneRoute(
        "A batch: its status and counts",
        "Poll it for progress (`counts.done` of `counts.total`), or give `webhook_url` when creating the batch and be told when it ends.",
        { description: "The batch", example: BATCH_COMPLETED },
      ),
    )
    .get(
      "/batches/:id/items",
      async ({ params, query, caller, request }) => {
        const from = parseCursor(query.cursor);
        const page = await itemsPage(
          deps.database,
          BATCHES.account(caller).keyId,
          params.id,
          from,
          parseLimit(query.limit),
        );
        if (!page) throw BATCHES.notFound(params.id);
        const nextCursor = page.next === null ? null : String(page.next);
        if (!/\btext\/csv\b/i.test(request.headers.get("accept") ?? ""))
          return { items: page.items, next_cursor: nextCursor };
        const csv = csvRecord([...CSV_COLUMNS]) + page.items.map(csvRow).join("");
        // A Response goes out as it is; the type says what the route documents for JSON.
        return new Response(csv, {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            ...(nextCursor !== null && { "x-next-cursor": nextCursor }),
          },
        }) as unknown as BatchItemsPage;
      },
      {
        ...BATCHES.idParams,
        // Other parameters are ignored, as other body fields are: a cache-buster (`?_=…`) is no error.
        query: t.Object(PAGE_QUERY, { additionalProperties: true }),
        response: { 200: "BatchItemsPage", ...errorResponses(400, 401, 403, 404, 429, 503) },
        detail: {
          summary: "The items of a batch, in input order, a page at a time",
          tags: ["Batches"],
          description:
            "With `Accept: text/csv`, the same page as CSV: a header row, one flat row per item; the next page's cursor is in `X-Next-Cursor`.",
          security: [{ ApiKey: [] }],
          responses: {
            200: {
              description: "A page of items; `next_cursor` is null on the last page",
              headers: {
                ...HEADERS.rateLimit,
                "X-Next-Cursor": {
                  description: "CSV only: the cursor of the next page, absent on the last",
                  schema: { type: "string" },
                },
              },
              content: {
                "application/json": {
                  schema: { $ref: "#/components/schemas/BatchItemsPage" },
                  example: BATCH_ITEMS_PAGE,
                },
                "text/csv": {
                  schema: { type: "string", description: `columns: ${CSV_COLUMNS.join(", ")}` },
                  example: csvRecord([...CSV_COLUMNS]) + BATCH_ITEMS_PAGE.items.map(csvRow).join(""),
                },
              },
            },
            400: BAD_PAGE,
            ...BATCHES.routeResponses,
            404: BATCHES.noSuch,
          },
        },
      },
    )
    .delete(
      "/batches/:id",
      async ({ params, caller }) => {
        const { keyId } = BATCHES.account(caller);
        const batch = await cancelBatch(deps.database, keyId, params.id, (rows, cancelled) =>
          queueBatchWebhook(rows, keyId, "batch.cancelled", cancelled),
        );
        if (!batch) throw BATCHES.notFound(params.id);
        return batch;
      },
      BATCHES.oneRoute(
        "Cancel a batch",
        "Items not yet done become `cancelled`, unbilled. A batch that has already completed is returned as it is.",
        {
          description: "The batch, cancelled (or as it was, when it had completed)",
          example: BATCH_CANCELLED,
        },
      ),
    );
}
