/**
 * Poland: the NRB, 26 digits, is the IBAN's check digits and its BBAN (ibandit `clean_pl_details`), so its
 * first two digits are checked like an IBAN's; the 24-digit BBAN, or the bank's 8-digit sort code (SWIFT
 * calls it the branch identifier) with the 16-digit account, are taken too.
 */
import type { CountryBuilder } from "../country-builder.ts";
import { ibanCheckDigits } from "../iban-check-digits.ts";
import { assemble } from "../layout.ts";
import { compact, malformed } from "../parts.ts";

const LAYOUT = { country: "PL", bank: 8, branch: 0, rest: 16, pad: true };

export const buildPolish: CountryBuilder = (parts, { format }) => {
  const account = compact(parts.account_number);
  const sortCode = parts.bank_code ?? parts.branch_code;
  const given = { account_number: parts.account_number, bank_code: sortCode };
  if (account.length !== 26) return assemble(given, LAYOUT, format);
  const assembled = assemble({ ...given, account_number: account.slice(2) }, LAYOUT, format);
  if ("refusal" in assembled) return assembled;
  if (ibanCheckDigits("PL", assembled.bban) !== account.slice(0, 2)) {
    return malformed("the NRB's first two digits (its check digits) do not match the rest of it");
  }
  return assembled;
};
