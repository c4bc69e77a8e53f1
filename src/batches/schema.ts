import { Type } from "@sinclair/typebox";
import { type Static, t } from "elysia";
import { ValidateRequestSchema } from "../http/schemas.ts";
import { IbanResultSchema } from "../iban/schema.ts";
import { stringEnum } from "../kernel/enum-schema.ts";
import { ErrorSchema } from "../kernel/errors.ts";
import { MatchRequestSchema } from "../matching/schema.ts";
import { VatResultSchema } from "../vat/schema.ts";

const integer = (description: string) => Type.Integer({ description });
const dateTime = (description: string) => t.String({ format: "date-time", description });
const nullable = <T extends ReturnType<typeof t.String>>(schema: T, description: string) =>
  t.Union([schema, t.Null()], { description });

export const REFERENCE_MAX_LENGTH = 200;

/** A batch's id as this API gives it out: `bat_` and 24 hexadecimal digits. */
export const BatchIdSchema = t.String({
  pattern: "^bat_[0-9a-f]{24}$",
  examples: ["bat_5f0c6e1d2a9b8c7d6e5f4a3b"],
});

/** One item of a batch: what POST /validate takes, and the caller's own reference. */
export const BatchItemInputSchema = t.Object(
  {
    vat: ValidateRequestSchema.properties.vat,
    iban: ValidateRequestSchema.properties.iban,
    match: t.Optional(MatchRequestSchema),
    reference: t.Optional(
      t.String({
        maxLength: REFERENCE_MAX_LENGTH,
        description: "your own identifier of the item (a customer id, say), returned with its result",
      }),
    ),
  },
  {
    title: "BatchItemInput",
    description:
      "send `vat`, `iban`, or both; `match` with `vat` only. In CSV, the columns `match_name`, `match_street`, `match_postcode`, `match_city` and `match_company_type` make up `match`",
  },
);
export type BatchItemInput = Static<typeof BatchItemInputSchema>;

export const BatchRequestSchema = t.Object(
  {
    items: t.Array(BatchItemInputSchema, {
      minItems: 1,
      description: "the items, at most BATCH_MAX_ITEMS (10,000 by default)",
    }),
    webhook_url: t.Optional(
      t.String({
        description:
          "an https URL that receives `batch.completed` or `batch.cancelled`, signed per Standard Webhooks",
      }),
    ),
  },
  { title: "BatchRequest" },
);
export type BatchRequest = Static<typeof BatchRequestSchema>;

export const BATCH_STATUSES = ["queued", "running", "completed", "cancelled"] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const ITEM_STATUSES = ["pending", "done", "failed", "cancelled"] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export const BatchCountsSchema = t.Object(
  {
    total: integer("items in the batch"),
    done: integer("items answered: at least one component has a definitive answer"),
    valid: integer("answered items whose answered components are all valid"),
    invalid: integer("answered items with a component found not valid (malformed or not registered)"),
    failed: integer(
      "items that could not be answered: upstream down past the retry window, or quota used up",
    ),
    billed: integer("items billed: a fresh definitive result came of them"),
  },
  { title: "BatchCounts" },
);

export const WebhookStateSchema = t.Object(
  {
    url: t.String(),
    last_delivery_at: nullable(
      dateTime(""),
      "when the last delivery attempt was made; null before the first",
    ),
    last_status: t.Union([Type.Integer(), t.Null()], {
      description: "HTTP status of the last attempt; null before the first, or when no answer came",
    }),
    attempts: integer("delivery attempts so far"),
  },
  { title: "WebhookState" },
);
export type WebhookState = Static<typeof WebhookStateSchema>;

export const BatchSchema = t.Object(
  {
    id: t.String(),
    status: stringEnum(BATCH_STATUSES),
    created_at: dateTime("when the batch was accepted"),
    completed_at: nullable(dateTime(""), "when the batch completed or was cancelled; null until then"),
    counts: BatchCountsSchema,
    webhook: t.Union([WebhookStateSchema, t.Null()], { description: "null when no webhook_url was given" }),
  },
  { title: "Batch" },
);
export type Batch = Static<typeof BatchSchema>;

export const BatchItemSchema = t.Object(
  {
    index: integer("position in the input, from 0"),
    reference: nullable(t.String(), "the reference sent with the item"),
    status: stringEnum(ITEM_STATUSES),
    vat: t.Optional(VatResultSchema),
    iban: t.Optional(IbanResultSchema),
    billable: t.Boolean({ description: "whether this item counted against the monthly quota" }),
    error: t.Union([ErrorSchema, t.Null()], {
      description: "why a failed item could not be answered; null otherwise",
    }),
  },
  { title: "BatchItem" },
);
export type BatchItem = Static<typeof BatchItemSchema>;

export const BatchItemsPageSchema = t.Object(
  {
    items: t.Array(BatchItemSchema),
    next_cursor: nullable(t.String(), "pass as `cursor` for the next page; null on the last page"),
  },
  { title: "BatchItemsPage" },
);
export type BatchItemsPage = Static<typeof BatchItemsPageSchema>;

export const BATCH_EVENTS = ["batch.completed", "batch.cancelled"] as const;

export const BatchEventSchema = t.Object(
  { type: stringEnum(BATCH_EVENTS), data: BatchSchema },
  { title: "BatchEvent", description: "what a batch's `webhook_url` receives when the batch ends" },
);
export type BatchEvent = Static<typeof BatchEventSchema>;
