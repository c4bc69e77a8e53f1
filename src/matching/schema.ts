import { type Static, t } from "elysia";
import { stringEnum } from "../kernel/enum-schema.ts";

/** The details a caller can ask to have matched, in the order they are reported. */
export const MATCH_FIELDS = ["name", "street", "postcode", "city", "company_type"] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];

export const MATCH_VALUE_MAX_LENGTH = 200;

const detail = (description: string) =>
  t.Optional(t.String({ maxLength: MATCH_VALUE_MAX_LENGTH, description }));

export const MatchRequestSchema = t.Object(
  {
    name: detail("the company's name as you were given it"),
    street: detail("street and house number"),
    postcode: detail("postal code"),
    city: detail("city or town"),
    company_type: detail(
      "legal form (`GmbH`, `S.A.`, `Sp. z o.o.`…), or a VIES company-type code such as `ES-1`",
    ),
  },
  {
    title: "MatchRequest",
    description:
      "details to compare with the registered name and address: at least one, each at most 200 characters; a blank one counts as not sent",
    minProperties: 1,
    additionalProperties: false,
    examples: [{ name: "GitHub BV", street: "Vijzelstraat 68", postcode: "1017 HL", city: "Amsterdam" }],
  },
);
export type MatchRequest = Static<typeof MatchRequestSchema>;

export const FIELD_RESULTS = ["match", "mismatch", "not_processed"] as const;
export type FieldResult = (typeof FIELD_RESULTS)[number];

export const FieldMatchSchema = t.Object(
  {
    result: stringEnum(FIELD_RESULTS, {
      description: "`not_processed`: nothing to compare it with (not disclosed, or not understood)",
    }),
    by: t.Union([stringEnum(["authority", "local"] as const), t.Null()], {
      description:
        "`authority`: the member state compared it (VIES approximate matching); `local`: this service compared it with the registered name and address; null when nobody could",
    }),
  },
  { title: "FieldMatch", examples: [{ result: "match", by: "local" }] },
);
export type FieldMatch = Static<typeof FieldMatchSchema>;

export const OVERALL_RESULTS = ["match", "partial", "mismatch", "not_processed"] as const;

export const MatchResultSchema = t.Object(
  {
    overall: stringEnum(OVERALL_RESULTS, {
      description:
        "`match`: every compared field matched; `mismatch`: the name did not (without a compared name: no compared field did); `not_processed`: nothing could be compared; `partial` otherwise",
    }),
    name: t.Optional(FieldMatchSchema),
    street: t.Optional(FieldMatchSchema),
    postcode: t.Optional(FieldMatchSchema),
    city: t.Optional(FieldMatchSchema),
    company_type: t.Optional(FieldMatchSchema),
  },
  {
    title: "MatchResult",
    description:
      "how the details sent in `match` compare with the authority's record: `overall`, and one entry per field that was sent",
    examples: [
      {
        overall: "partial",
        name: { result: "match", by: "local" },
        street: { result: "match", by: "local" },
        postcode: { result: "match", by: "local" },
        city: { result: "mismatch", by: "local" },
      },
    ],
  },
);
export type MatchResult = Static<typeof MatchResultSchema>;

export const MatchRecordSchema = t.Object(
  { sent: MatchRequestSchema, result: MatchResultSchema },
  { title: "MatchRecord", description: "the details sent to be matched, and how they compared" },
);
