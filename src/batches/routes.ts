import { Elysia, t } from "elysia";
import type { BatchLimits, Plan } from "../accounts/plans.ts";
import type { Config } from "../config.ts";
import { type Caller, directAccountOf } from "../http/auth.ts";
import { readBoundedBody } from "../http/body.ts";
import {
  errorExample,
  errorResponses,
  HEADERS,
  jsonExample,
  KEYED_ROUTE_RESPONSES,
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
import { PAGE_QUERY, parseCursor, parseLimit } from "../http/paging.ts";
import type { Idempotency } from "../idempotency/plugin.ts";
import type { Database } from "../kernel/db.ts";
import { ApiError } from "../kernel/errors.ts";
import { queueBatchWebhook } from "../webhooks/messages.ts";
import { acceptWebhookUrl, type Resolver, type WebhookPolicy } from "../webhooks/target.ts";
import { csvRecord } from "./csv.ts";
import { CSV_LIMITS, parseBatchBody } from "./input.ts";
import { type Batch, BatchIdSchema, type BatchItem, type BatchItemsPage } from "./schema.ts";
import { cancelBatch, createBatch, findBatch, itemsPage } from "./store.ts";
import { checkBatchSize } from "./volume.ts";

export type BatchRoutesDeps = {
  database: Database;
  config: Pick<Config, "BATCH_MAX_ITEMS" | "BATCH_MAX_BYTES">;
  webhookPolicy: WebhookPolicy;
  /** Resolves webhook hosts when a batch is created; the system's resolver by default. */
  resolve?: Resolver;
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

const notFound = (id: string) => new ApiError("not_found", `no batch ${id}`);

/** What every batch route may answer besides its own outcomes. */
const BATCH_ROUTE_RESPONSES = {
  ...KEYED_ROUTE_RESPONSES,
  403: {
    description:
      "`forbidden`: the key is revoked, or is a marketplace subscriber's (batches are for direct keys)",
    ...errorExample("forbidden", "batches are for direct API keys; through the marketplace, use /validate"),
  },
};

const NO_SUCH_BATCH = {
  description: "`not_found`: no batch of this key has this id",
  ...errorExample("not_found", `no batch ${BATCH_QUEUED.id}`),
};

/** The hook of a route that answers one batch of the caller's, named by id. */
function oneBatchRoute(
  summary: string,
  description: string,
  answer: { description: string; example: Batch },
) {
  return {
    caller: true as const,
    params: t.Object({ id: BatchIdSchema }),
    response: { 200: "Batch" as const, ...errorResponses(401, 403, 404, 429, 503) },
    detail: {
      summary,
      description,
      tags: ["Batches"],
      security: [{ ApiKey: [] }],
      responses: {
        200: { description: answer.description, headers: HEADERS.rateLimit, ...jsonExample(answer.example) },
        ...BATCH_ROUTE_RESPONSES,
        404: NO_SUCH_BATCH,
      },
    },
  };
}

/**
 * The account a batch route serves: direct keys only. The marketplace gateway bills each call
 * by the `X-Gateway-Billing` header of its answer, which a batch, billed item by item later,
 * cannot give.
 */
const directAccount = (caller: Caller) => directAccountOf(caller, "batches");

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
    raw === undefined ? null : acceptWebhookUrl(raw, deps.webhookPolicy, deps.resolve);

  return new Elysia({ name: "batches" })
    .model(models)
    .use(keyed)
    .post(
      "/batches",
      async ({ body, caller, set }) => {
        const { keyId, plan } = directAccount(caller);
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
            ...BATCH_ROUTE_RESPONSES,
            429: {
              description:
                "`rate_limited`: the per-minute limit, or the plan's batches queued or running at once, or its batch items a day (UTC); the message names which, and `Retry-After` when it frees",
              headers: BATCH_ROUTE_RESPONSES[429].headers,
              ...errorExample(
                "rate_limited",
                "the free plan allows 2 batches queued or running at once; one frees when a batch of this key completes or is cancelled (DELETE /batches/{id})",
              ),
            },
            413: {
              description: "`invalid_request`: the body is over BATCH_MAX_BYTES (4 MiB by default)",
              ...errorExample("invalid_request", "the body must be at most 4194304 bytes"),
            },
          },
        },
      },
    )
    .get(
      "/batches/:id",
      async ({ params, caller }) => {
        const batch = await findBatch(deps.database.rows, directAccount(caller).keyId, params.id);
        if (!batch) throw notFound(params.id);
        return batch;
      },
      oneBatchRoute(
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
          directAccount(caller).keyId,
          params.id,
          from,
          parseLimit(query.limit),
        );
        if (!page) throw notFound(params.id);
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
        caller: true,
        params: t.Object({ id: BatchIdSchema }),
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
            400: {
              description: "`invalid_request`: a cursor or limit this API did not give out",
              ...errorExample("invalid_request", "`limit` must be a whole number from 1 to 1000"),
            },
            ...BATCH_ROUTE_RESPONSES,
            404: NO_SUCH_BATCH,
          },
        },
      },
    )
    .delete(
      "/batches/:id",
      async ({ params, caller }) => {
        const { keyId } = directAccount(caller);
        const batch = await cancelBatch(deps.database, keyId, params.id, (rows, cancelled) =>
          queueBatchWebhook(rows, keyId, "batch.cancelled", cancelled),
        );
        if (!batch) throw notFound(params.id);
        return batch;
      },
      oneBatchRoute(
        "Cancel a batch",
        "Items not yet done become `cancelled`, unbilled. A batch that has already completed is returned as it is.",
        {
          description: "The batch, cancelled (or as it was, when it had completed)",
          example: BATCH_CANCELLED,
        },
      ),
    );
}
