/**
 * Italy and San Marino: ABI (`bank_code`, 5 digits), CAB (`branch_code`, 5 digits) and the account
 * (up to 12 characters, left-padded with zeros); the CIN check letter in front is computed, as ibandit's
 * `assemble_it_bban` and schwifty do. A whole BBAN with its CIN is taken as it is (and checked).
 */
import { Buffer } from "node:buffer";
import { cinOf } from "../../national/cin.ts";
import type { CountryBuilder } from "../country-builder.ts";
import { assemble, checkCharacters } from "../layout.ts";
import { compact, malformed, quoted } from "../parts.ts";

function builder(country: string): CountryBuilder {
  const layout = { country, bank: 5, branch: 5, rest: 12, pad: true };
  return (parts, { format }) => {
    const account = compact(parts.account_number);
    if (account.length === 23) {
      const bank = compact(parts.bank_code);
      const branch = compact(parts.branch_code);
      if (
        (bank !== "" && bank !== account.slice(1, 6)) ||
        (branch !== "" && branch !== account.slice(6, 11))
      ) {
        return malformed(
          `\`bank_code\` ${quoted(parts.bank_code)} and \`branch_code\` ${quoted(parts.branch_code)} are not the ABI and CAB of the account number`,
        );
      }
      return checkCharacters(account, format, () => "account_number");
    }
    const withoutCin = { ...format, bbanClasses: format.bbanClasses.slice(1) };
    const assembled = assemble(parts, layout, withoutCin);
    if ("refusal" in assembled) return assembled;
    return { bban: String.fromCharCode(cinOf(Buffer.from(assembled.bban, "latin1"), 0)) + assembled.bban };
  };
}

export const ITALIAN_BUILDERS: Record<string, CountryBuilder> = { IT: builder("IT"), SM: builder("SM") };
