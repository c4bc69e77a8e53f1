import { Type } from "@sinclair/typebox";
import { type Static, t } from "elysia";
import { REFERENCE_MAX_LENGTH, WebhookStateSchema } from "../batches/schema.ts";
import { ValidateRequestSchema } from "../http/schemas.ts";
import { stringEnum } from "../kernel/enum-schema.ts";
import { MatchRequestSchema } from "../matching/schema.ts";
import { VatResultSchema } from "../vat/schema.ts";

const integer = (description: string) => Type.Integer({ description });
const dateTime = (description: string) => t.String({ format: "date-time", description });
const nullable = <T extends ReturnType<typeof t.String>>(schema: T, description: string) =>
  t.Union([schema, t.Null()], { description });

export const INTERVAL_DAYS = { minimum: 1, maximum: 365, default: 30 } as const;

/** A monitor's id as this API gives it out: `mon_` and 24 hexadecimal digits. */
export const MonitorIdSchema = t.String({
  pattern: "^mon_[0-9a-f]{24}$",
  examples: ["mon_4b1e0c9f2d7a6e5b3c8d1f0a"],
});

const vat = t.String({
  maxLength: ValidateRequestSchema.properties.vat.maxLength,
  description: "the VAT number to watch, with its country prefix; a malformed one is refused",
});
const reference = t.String({
  maxLength: REFERENCE_MAX_LENGTH,
  description: "your own identifier of the number (a customer id, say), returned with the monitor",
});
// No `default` in the schema: generated clients would make the field required.
const intervalDays = Type.Integer({
  minimum: INTERVAL_DAYS.minimum,
  maximum: INTERVAL_DAYS.maximum,
  description: `days between two checks, ${INTERVAL_DAYS.minimum} to ${INTERVAL_DAYS.maximum}; ${INTERVAL_DAYS.default} by default`,
});
const webhookUrl = t.String({
  description:
    "an https URL that receives the monitor's events (`vat.registration_changed`, `vat.details_changed`, `vat.match_changed`), signed per Standard Webhooks",
});

/** One number to watch, as an item of a list. */
export const MonitorItemSchema = t.Object(
  {
    vat,
    reference: t.Optional(reference),
    match: t.Optional(MatchRequestSchema),
    interval_days: t.Optional(intervalDays),
  },
  {
    title: "MonitorItem",
    description:
      "a number to watch; with `match`, every check also compares the registered name and address with these details. In CSV, the columns `vat`, `reference`, `interval_days` and `match_name`, `match_street`, `match_postcode`, `match_city`, `match_company_type`",
  },
);

export const MonitorRequestSchema = t.Object(
  { ...MonitorItemSchema.properties, webhook_url: t.Optional(webhookUrl) },
  {
    title: "MonitorRequest",
    description: "one number to watch",
  },
);

export const MonitorListRequestSchema = t.Object(
  {
    items: t.Array(MonitorItemSchema, {
      minItems: 1,
      description: "the numbers, at most BATCH_MAX_ITEMS (10,000 by default)",
    }),
    webhook_url: t.Optional(webhookUrl),
  },
  {
    title: "MonitorListRequest",
    description: "a list of numbers to watch, all with the same webhook",
  },
);

export const MONITOR_STATUSES = ["active", "paused"] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];

export const MonitorSchema = t.Object(
  {
    id: MonitorIdSchema,
    vat_number: t.String({ description: "the number watched, normalized, with its prefix" }),
    reference: nullable(t.String(), "the reference sent with it"),
    interval_days: integer("days between two checks"),
    status: stringEnum(MONITOR_STATUSES, {
      description: "`active`: checked every `interval_days`; `paused`: not checked until made active again",
    }),
    created_at: dateTime("when it was created"),
    last_checked_at: nullable(dateTime(""), "when it was last answered; null before its first answer"),
    next_check_at: nullable(
      dateTime(""),
      "when it is checked next: its next round, or later while its member state is down or the key's monthly quota is used up (then the quota's reset); null while paused",
    ),
    last_result: t.Union([VatResultSchema, t.Null()], {
      description: "the last answer, as /validate gives it; null before the first",
    }),
    webhook: t.Union([WebhookStateSchema, t.Null()], {
      description: "null when it has no webhook_url; else the delivery of its latest event",
    }),
  },
  {
    title: "Monitor",
    description: "a VAT number checked again and again, whose changes become events",
  },
);
export type Monitor = Static<typeof MonitorSchema>;

export const MonitorsCreatedSchema = t.Object(
  {
    monitors: t.Array(MonitorSchema, {
      description:
        "one per item, in input order: the new monitor, or the one that already watches the number",
    }),
    created: integer("monitors created by this request; the others existed already"),
  },
  { title: "MonitorsCreated" },
);
export type MonitorsCreated = Static<typeof MonitorsCreatedSchema>;

export const MonitorCreationSchema = t.Union([MonitorSchema, MonitorsCreatedSchema], {
  title: "MonitorCreation",
  description: "for one number, its Monitor; for a list, MonitorsCreated",
});

const nextCursor = nullable(t.String(), "pass as `cursor` for the next page; null on the last page");

export const MonitorPageSchema = t.Object(
  { monitors: t.Array(MonitorSchema), next_cursor: nextCursor },
  { title: "MonitorPage" },
);
export type MonitorPage = Static<typeof MonitorPageSchema>;

export const MonitorUpdateSchema = t.Object(
  {
    interval_days: t.Optional(intervalDays),
    reference: t.Optional(t.Union([reference, t.Null()], { description: "null removes it" })),
    webhook_url: t.Optional(
      t.Union([webhookUrl, t.Null()], { description: "where its next events go; null removes it" }),
    ),
    status: t.Optional(
      stringEnum(MONITOR_STATUSES, {
        description: "`paused` stops its checks; `active` resumes them (at once, if a round was missed)",
      }),
    ),
  },
  {
    title: "MonitorUpdate",
    description: "the fields to change; the others stay as they are",
    minProperties: 1,
    examples: [{ interval_days: 7 }, { status: "paused" }, { webhook_url: null }],
  },
);
export type MonitorUpdate = {
  interval_days?: number;
  reference?: string | null;
  webhook_url?: string | null;
  status?: MonitorStatus;
};

export const MONITOR_EVENT_TYPES = [
  "vat.registration_changed",
  "vat.details_changed",
  "vat.match_changed",
] as const;
export type MonitorEventType = (typeof MONITOR_EVENT_TYPES)[number];

const eventType = stringEnum(MONITOR_EVENT_TYPES, {
  description:
    "`vat.registration_changed`: `valid` turned from true to false or back; `vat.details_changed`: the registered name or address changed; `vat.match_changed`: the verdict of the watched `match` changed",
});

export const MonitorEventDataSchema = t.Object(
  {
    monitor: MonitorSchema,
    previous: VatResultSchema,
    current: VatResultSchema,
  },
  {
    title: "MonitorEventData",
    description: "the monitor as the check left it, and the two answers that differ",
  },
);

/** The body of a monitor's webhook: what changed, signed per Standard Webhooks. */
export const MonitorEventSchema = t.Object(
  { type: eventType, data: MonitorEventDataSchema },
  {
    title: "MonitorEvent",
    description: "the body of a monitor's webhook; `webhook-id` is the event's id, the same on every retry",
  },
);
export type MonitorEvent = Static<typeof MonitorEventSchema>;

export const MonitorEventRecordSchema = t.Object(
  {
    id: t.String({ description: "the event's id: the `webhook-id` of its webhook" }),
    type: eventType,
    created_at: dateTime("when the check that found the change finished"),
    data: MonitorEventDataSchema,
  },
  {
    title: "MonitorEventRecord",
    description: "an event as GET /monitors/{id}/events lists it: the webhook's body, with its id and time",
  },
);
export type MonitorEventRecord = Static<typeof MonitorEventRecordSchema>;

export const MonitorEventPageSchema = t.Object(
  { events: t.Array(MonitorEventRecordSchema, { description: "oldest first" }), next_cursor: nextCursor },
  { title: "MonitorEventPage" },
);
export type MonitorEventPage = Static<typeof MonitorEventPageSchema>;
