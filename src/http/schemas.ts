import { Type } from "@sinclair/typebox";
import { type Static, t } from "elysia";
import { IbanResultSchema } from "../iban/schema.ts";
import { stringEnum } from "../kernel/enum-schema.ts";
import { MatchRequestSchema } from "../matching/schema.ts";
import { VatResultSchema } from "../vat/schema.ts";

export const PLAN_IDS = ["free", "basic", "pro", "rapidapi"] as const;
export type PlanId = (typeof PLAN_IDS)[number];

const PlanIdSchema = stringEnum(PLAN_IDS, { description: "plan of the calling key" });
const dateTime = (description: string) => t.String({ format: "date-time", description });
// TypeBox's own integer: Elysia's `t.Integer` also accepts numeric strings (for query
// strings), which a response must not contain and the document would then advertise.
const integer = (description?: string) => Type.Integer({ description });
const nullableInteger = (description: string) => t.Union([integer(), t.Null()], { description });

export const ValidateRequestSchema = t.Object(
  {
    vat: t.Optional(
      t.String({
        maxLength: 40,
        description:
          "VAT number with its 2-letter country prefix: an EU one (or XI, GB), a Swiss UID (`CHE-101.329.561 MWST`) or a Norwegian organisation number (`NO 923 609 016 MVA`)",
      }),
    ),
    iban: t.Optional(t.String({ maxLength: 60, description: "IBAN, with or without spaces" })),
    match: t.Optional(MatchRequestSchema),
  },
  // Fields it does not know are ignored, not refused: a client may send more than it needs to.
  {
    minProperties: 1,
    additionalProperties: true,
    title: "ValidateRequest",
    description:
      "send `vat`, `iban`, or both; with `vat`, `match` asks whether the number's registered name and address are the ones you were given",
    examples: [
      { vat: "NL854265259B01" },
      { vat: "NL854265259B01", match: { name: "GitHub BV", city: "Amsterdam" } },
      { vat: "DE811569869", iban: "DE89 3704 0044 0532 0130 00" },
      { vat: "CHE-101.329.561 MWST" },
      { vat: "NO 923 609 016 MVA" },
    ],
  },
);
export type ValidateRequest = Static<typeof ValidateRequestSchema>;

export const UsageBlockSchema = t.Object(
  {
    plan: PlanIdSchema,
    used: integer("billable validations used this period, after this request"),
    limit: nullableInteger("monthly quota; null when the plan has none"),
    remaining: nullableInteger("validations left this period; null when the plan has no quota"),
    reset_at: dateTime("start of the next period (00:00 UTC on the 1st)"),
  },
  { title: "UsageBlock" },
);
export type UsageBlock = Static<typeof UsageBlockSchema>;

export const ValidateResponseSchema = t.Object(
  {
    request_id: t.String({ description: "identifier of the request, also in the X-Request-Id header" }),
    vat: t.Optional(VatResultSchema),
    iban: t.Optional(IbanResultSchema),
    billable: t.Boolean({ description: "whether this request counted against the monthly quota" }),
    usage: UsageBlockSchema,
  },
  { title: "ValidateResponse" },
);
export type ValidateResponse = Static<typeof ValidateResponseSchema>;

export const UsageSchema = t.Object(
  {
    plan: PlanIdSchema,
    plan_name: t.String(),
    price_usd_per_month: t.Number(),
    monthly_quota: nullableInteger("billable validations per month; null when the plan has none"),
    used: integer("billable validations used this period"),
    remaining: nullableInteger("null when the plan has no quota"),
    period_start: dateTime("start of the current period"),
    reset_at: dateTime("start of the next period"),
    rate_limit_per_minute: integer(),
    requests_this_month: integer("all validate requests, including cache hits"),
    key_id: t.Union([t.String(), t.Null()], {
      description: "public id of the key; null for gateway subscribers",
    }),
  },
  { title: "Usage" },
);
export type Usage = Static<typeof UsageSchema>;

export const HealthSchema = t.Object(
  {
    status: t.Literal("ok"),
    registry_version: t.String({
      description: "version of the bundled IBAN structures and bank registry, with the date of the bank data",
    }),
  },
  { title: "Health" },
);
export type Health = Static<typeof HealthSchema>;
