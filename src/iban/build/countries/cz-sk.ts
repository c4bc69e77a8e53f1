/**
 * Czech Republic and Slovakia: `prefix-number/bank` as printed (`19-2000145399/0800`; the prefix is
 * often absent), or the number with `bank_code`. BBAN: bank (4), prefix left-padded to 6, number to 10
 * (ibandit `clean_cz_details`, python-stdnum `cz/bankaccount.py`).
 */
import type { CountryBuilder } from "../country-builder.ts";
import { assemble } from "../layout.ts";
import { compact, isDigits, malformed, quoted } from "../parts.ts";

function builder(country: string): CountryBuilder {
  const layout = { country, bank: 4, branch: 0, rest: 16, pad: true };
  return (parts, { format }) => {
    const raw = parts.account_number ?? "";
    const slash = raw.lastIndexOf("/");
    const sentBank = compact(parts.bank_code);
    const bank = slash >= 0 ? compact(raw.slice(slash + 1)) : sentBank;
    if (slash >= 0 && sentBank !== "" && sentBank !== bank) {
      return malformed(`\`bank_code\` ${quoted(parts.bank_code)} is not the bank after the slash (${bank})`);
    }
    const account = slash >= 0 ? raw.slice(0, slash) : raw;
    const dash = account.indexOf("-");
    if (dash < 0) return assemble({ ...parts, bank_code: bank, account_number: account }, layout, format);
    const prefix = compact(account.slice(0, dash));
    const number = compact(account.slice(dash + 1));
    if (!isDigits(prefix, 1, 6))
      return malformed(`the account prefix (before the dash) has up to 6 digits, got ${quoted(prefix)}`);
    if (!isDigits(number, 2, 10))
      return malformed(`the account number (after the dash) has 2 to 10 digits, got ${quoted(number)}`);
    return assemble(
      { ...parts, bank_code: bank, account_number: prefix.padStart(6, "0") + number.padStart(10, "0") },
      layout,
      format,
    );
  };
}

export const CZECH_SLOVAK_BUILDERS: Record<string, CountryBuilder> = { CZ: builder("CZ"), SK: builder("SK") };
