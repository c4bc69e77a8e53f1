/**
 * Hungary: the account number is 2 or 3 groups of 8 digits (`11773016-11111018[-00000000]`), bank (3) and
 * branch (4) first, whether sent in one string or in parts; a 16-digit number ends in 8 zeros in the BBAN
 * (ibandit `clean_hu_details`).
 */
import type { CountryBuilder } from "../country-builder.ts";
import { checkCharacters } from "../layout.ts";
import { compact, isDigits, malformed, missing } from "../parts.ts";

export const buildHungarian: CountryBuilder = (parts, { format }) => {
  const digits = compact(parts.bank_code) + compact(parts.branch_code) + compact(parts.account_number);
  if (compact(parts.account_number) === "") return missing("send `account_number`: the HU account number");
  if (!isDigits(digits, 16) && !isDigits(digits, 24)) {
    return malformed(
      `a Hungarian account number has 16 or 24 digits (bank and branch codes included), got ${digits.length} characters`,
    );
  }
  return checkCharacters(digits.padEnd(24, "0"), format, () => "account_number");
};
