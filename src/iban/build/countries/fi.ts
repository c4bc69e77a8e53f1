/**
 * Finland: the short form `123456-785` (a 6-digit bank and branch code, then up to 8 digits) becomes
 * the 14-digit machine form by zeros: for banks whose code starts with 4, 5 or 6 after the first digit of
 * the account, for the others before it (ibandit `clean_fi_details`; Finance Finland's account number
 * standard). The machine form itself, or the IBAN's 3-digit bank code and 11 digits, are taken as they are.
 */
import type { CountryBuilder } from "../country-builder.ts";
import { assemble } from "../layout.ts";
import { compact, isDigits, malformed, missing, quoted } from "../parts.ts";

const IBAN_PARTS = { country: "FI", bank: 3, branch: 0, rest: 11, pad: false };

export const buildFinnish: CountryBuilder = (parts, { format }) => {
  const raw = parts.account_number ?? "";
  const dash = raw.indexOf("-");
  let bank = compact(parts.bank_code);
  let account = compact(raw);
  if (bank === "" && dash > 0) {
    bank = compact(raw.slice(0, dash));
    account = compact(raw.slice(dash + 1));
  }
  if (account.length === 14 || bank.length === 3) {
    return assemble({ ...parts, bank_code: bank, account_number: account }, IBAN_PARTS, format);
  }
  if (bank === "") {
    return missing("send `bank_code` (6 digits) with the account number, or the number as `123456-785`");
  }
  if (!isDigits(bank, 6)) return malformed(`the Finnish bank code has 6 digits, got ${quoted(bank)}`);
  if (!isDigits(account, 2, 8)) {
    return malformed(
      `the Finnish account number has 2 to 8 digits after the bank code, got ${quoted(account)}`,
    );
  }
  const machine = "456".includes(bank[0] as string)
    ? bank + account[0] + account.slice(1).padStart(7, "0")
    : bank + account.padStart(8, "0");
  return assemble({ account_number: machine }, IBAN_PARTS, format);
};
