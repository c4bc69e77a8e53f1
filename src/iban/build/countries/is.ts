/**
 * Iceland: bank (4 digits: bank and branch), ledger (2), account (6) and the holder's kennitala (10),
 * printed `0159-26-007654-551073-0339`; groups written without their leading zeros are padded, as
 * ibandit's `pad_is_account_number` does. The bank may come as `bank_code` (with `branch_code`).
 */
import type { CountryBuilder } from "../country-builder.ts";
import { checkCharacters } from "../layout.ts";
import { compact, malformed, missing, quoted } from "../parts.ts";

/** The groups after the bank: ledger, account, and the kennitala in one or two groups. */
function padGroups(groups: string[]): string {
  const [ledger = "", account = "", kennitala1 = "", kennitala2 = ""] = groups.map(compact);
  const kennitala =
    kennitala1 === "" ? "" : (kennitala1.padStart(6, "0") + kennitala2.padStart(4, "0")).padStart(10, "0");
  return ledger.padStart(2, "0") + account.padStart(6, "0") + kennitala;
}

export const buildIcelandic: CountryBuilder = (parts, { format }) => {
  const raw = parts.account_number ?? "";
  if (compact(raw) === "") return missing("send `account_number`: the IS account number and kennitala");
  const sentBank = compact(parts.bank_code) + compact(parts.branch_code);
  const groups = raw.split("-");
  let bank = sentBank;
  if (bank === "" && groups.length > 1) bank = compact(groups.shift());
  const rest = groups.length > 1 ? padGroups(groups) : compact(groups[0]);
  if (bank === "" && rest.length === 22) return checkCharacters(rest, format, () => "account_number");
  if (bank === "")
    return missing("send `bank_code` (4 digits) with the account number, or the number as printed");
  if (bank.length > 4) return malformed(`the Icelandic bank code has 4 digits, got ${quoted(bank)}`);
  const bban = bank.padStart(4, "0") + rest;
  if (rest.length !== 18) {
    return malformed(
      `an Icelandic account number has ledger (2), account (6) and kennitala (10) after the bank, got ${rest.length} digits`,
    );
  }
  return checkCharacters(bban, format, (index) => (index < 4 ? "bank_code" : "account_number"));
};
