import { type Static, t } from "elysia";
import { stringEnum } from "../kernel/enum-schema.ts";
import { ErrorSchema } from "../kernel/errors.ts";

const nullableString = (description: string) => t.Union([t.String(), t.Null()], { description });

export const BankSchema = t.Object(
  { name: t.String(), bic: t.String() },
  { title: "Bank", description: "Bank name and BIC from the bundled registry" },
);
export type Bank = Static<typeof BankSchema>;

export const NationalCheckSchema = stringEnum(["passed", "failed", "not_applicable"] as const, {
  description:
    "whether the BBAN's national check digits hold (for DE: the account number under its bank's Bundesbank check method). `not_applicable` where the country has none, the bank's method defines none for the account, a published exception applies, or the IBAN is not valid",
});

export const IbanResultSchema = t.Object(
  {
    input: t.String({ description: "the value as sent (from POST /iban/build: the IBAN built)" }),
    valid: t.Union([t.Boolean(), t.Null()], {
      description: "checksum, length and structure all pass; false for malformed input",
    }),
    iban: nullableString("electronic format, no spaces"),
    iban_formatted: nullableString("print format, groups of 4"),
    country_code: nullableString("ISO 3166-1 alpha-2"),
    check_digits: nullableString("the two check digits"),
    bban: nullableString("basic bank account number"),
    bank_code: nullableString("bank identifier, per the IBAN registry positions"),
    branch_code: nullableString("branch identifier, where the country has one"),
    account_number: nullableString("account number part of the BBAN"),
    sepa: t.Union([t.Boolean(), t.Null()], { description: "country is in the SEPA scheme" }),
    bank: t.Union([BankSchema, t.Null()], { description: "null when the bank code is not covered" }),
    national_check: NationalCheckSchema,
    source: t.Literal("offline"),
    cached: t.Boolean(),
    error: t.Union([ErrorSchema, t.Null()]),
    warning: t.Union([ErrorSchema, t.Null()], {
      description:
        "`national_check_failed` when `national_check` is `failed`, its message naming the country's rule; otherwise null. A warning, not a rejection: `valid` keeps its meaning",
    }),
  },
  { title: "IbanResult" },
);
export type IbanResult = Static<typeof IbanResultSchema>;
