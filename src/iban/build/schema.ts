import { type Static, t } from "elysia";
import { UsageBlockSchema } from "../../http/schemas.ts";
import { IbanResultSchema } from "../schema.ts";

const part = (description: string) => t.Optional(t.String({ maxLength: 60, description }));

export const IbanBuildRequestSchema = t.Object(
  {
    country_code: t.String({ maxLength: 2, description: "ISO 3166-1 alpha-2 code of the account's country" }),
    bank_code: part(
      "the bank code as the country prints it (BLZ, ABI, sort-code bank, …); for GB, IE and NL the bank's 4-letter code or its BIC. Not needed where the account number carries it (ES CCC, FR RIB, BE, PL NRB, CZ `…/0800`, …)",
    ),
    branch_code: part(
      "the branch code where the country has one (ES, IT CAB, PT, GB/IE sort code, FR guichet)",
    ),
    account_number: t.String({
      maxLength: 60,
      description:
        "the domestic account number as printed: spaces, dashes, dots and (CZ, SK) the slash before the bank are fine",
    }),
  },
  {
    additionalProperties: true,
    title: "IbanBuildRequest",
    description:
      "a domestic account number: `country_code` and `account_number`, with `bank_code` and `branch_code` where the number does not carry them",
  },
);

export type IbanBuildRequest = Static<typeof IbanBuildRequestSchema>;

export const IbanBuildResponseSchema = t.Object(
  {
    request_id: t.String({ description: "identifier of the request, also in the X-Request-Id header" }),
    iban: IbanResultSchema,
    billable: t.Boolean({ description: "whether this request counted against the monthly quota" }),
    usage: UsageBlockSchema,
  },
  { title: "IbanBuildResponse" },
);
export type IbanBuildResponse = Static<typeof IbanBuildResponseSchema>;
