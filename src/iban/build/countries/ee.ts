/**
 * Estonia: the domestic account number (up to 14 digits) names its bank by its first two significant
 * digits, which are the IBAN bank code except for 11 (Swedbank: 22) and 93 (00); ibandit
 * `clean_ee_details` after Pangaliit's table of Estonian bank codes.
 */
import type { CountryBuilder } from "../country-builder.ts";
import { assemble } from "../layout.ts";
import { compact, malformed, quoted } from "../parts.ts";

const IBAN_BANK_CODE: Readonly<Record<string, string>> = { "11": "22", "93": "00" };
const LAYOUT = { country: "EE", bank: 2, branch: 0, rest: 14, pad: true };

export const buildEstonian: CountryBuilder = (parts, { format }) => {
  const account = compact(parts.account_number);
  if (account.length === 16) return assemble(parts, LAYOUT, format);
  const domestic = account.replace(/^0+/, "").slice(0, 2);
  const derived = IBAN_BANK_CODE[domestic] ?? domestic;
  const sent = compact(parts.bank_code);
  if (sent !== "" && sent !== derived) {
    return malformed(
      `\`bank_code\` ${quoted(parts.bank_code)} is not the bank of the account number, which names bank ${derived}`,
    );
  }
  return assemble({ ...parts, bank_code: derived }, LAYOUT, format);
};
