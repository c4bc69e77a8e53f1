import { type Static, t } from "elysia";
import { ErrorSchema } from "../kernel/errors.ts";
import { MatchResultSchema } from "../matching/schema.ts";

const nullableString = (description: string) => t.Union([t.String(), t.Null()], { description });

// Literals rather than an enum: a nullable enum would be documented without null among its values.
// Every AuthoritySource must be here: results built from a verdict do not type-check otherwise.
export const VatSourceSchema = t.Union(
  [
    t.Literal("vies"),
    t.Literal("uk_authority"),
    t.Literal("ch_uid"),
    t.Literal("no_brreg"),
    t.Literal("syntax"),
    t.Null(),
  ],
  {
    description:
      "who answered: vies (EU member states and XI), uk_authority (GB), ch_uid (the Swiss UID register), no_brreg (the Norwegian Register of Legal Entities); syntax (rejected locally by the format check); or null",
  },
);

export const VatResultSchema = t.Object(
  {
    input: t.String({ description: "the value as sent" }),
    valid: t.Union([t.Boolean(), t.Null()], {
      description:
        "true registered; false not registered or malformed; null could not be determined (see error)",
    }),
    vat_number: nullableString("normalized number with prefix"),
    country_code: nullableString("ISO 3166-1 alpha-2; GR for prefix EL, GB for prefix XI, CH for CHE"),
    country_name: nullableString("English name of the country"),
    name: nullableString("registered name; null when the member state does not disclose it"),
    address: nullableString("registered address, lines separated by \\n; same disclosure rule as name"),
    source: VatSourceSchema,
    cached: t.Boolean({ description: "served from cache" }),
    stale: t.Boolean({ description: "served from the last-known-good copy during an upstream outage" }),
    checked_at: t.Union([t.String({ format: "date-time" }), t.Null()], {
      description: "when the authority confirmed this result",
    }),
    consultation_number: nullableString("consultation reference of the upstream, when configured"),
    error: t.Union([ErrorSchema, t.Null()]),
    warning: t.Union([ErrorSchema, t.Null()]),
    match: t.Union([MatchResultSchema, t.Null()], {
      description:
        "how the details sent in `match` compare with the registered ones; null when none were sent",
    }),
  },
  { title: "VatResult" },
);
export type VatResult = Static<typeof VatResultSchema>;
