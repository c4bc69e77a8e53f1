/**
 * Germany: bank code (BLZ, 8 digits) and account number (up to 10 digits), through the Bundesbank's IBAN
 * rule of the bank (`germanBban`: replaced bank codes, special accounts, sub-accounts, banks and accounts
 * with no IBAN), then the account checked with the method of the bank it ends at.
 */
import { germanBban } from "../../national/germany/iban-rules.ts";
import type { CountryBuilder } from "../country-builder.ts";
import { assemble } from "../layout.ts";
import { compact, malformed } from "../parts.ts";

const LAYOUT = { country: "DE", bank: 8, branch: 0, rest: 10, pad: true };

export const buildGerman: CountryBuilder = (parts, { format, registry }) => {
  const assembled = assemble(parts, LAYOUT, format);
  if ("refusal" in assembled) return assembled;
  // The account as given, so that a refusal names it as the caller wrote it.
  const account = compact(parts.account_number);
  const given = account.length <= 10 ? account : assembled.bban.slice(8);
  const converted = germanBban(assembled.bban.slice(0, 8), given, registry.germany);
  return converted.ok ? { bban: converted.bankCode + converted.account } : malformed(converted.reason);
};
