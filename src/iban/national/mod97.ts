/**
 * National checks over the BBAN as one number modulo 97 (ISO 7064 MOD 97-10, letters read as two digits
 * as in the IBAN's own check), and Belgium's, over the first ten digits.
 */
import { continueMod97 } from "../mod97.ts";
import { checkRule, digitAt, type NationalRule, startsWith } from "./rule.ts";

/** The whole BBAN (`length` characters) leaves `remainder` modulo 97. */
function bbanLeaves(length: number, remainder: 0 | 1): (codes: Uint8Array, at: number) => boolean {
  return (codes, at) => continueMod97(codes, at, at + length, 0) === remainder;
}

/**
 * Belgium: the last two digits are the first ten modulo 97, with 97 for a remainder of 0 (python-stdnum
 * `be/iban.py`, schwifty `belgium.py`).
 */
function belgiumHolds(codes: Uint8Array, at: number): boolean {
  const check = digitAt(codes, at + 10) * 10 + digitAt(codes, at + 11);
  return (continueMod97(codes, at, at + 10, 0) || 97) === check;
}

const TWO_CHECK_DIGITS =
  "the two national check digits at the end of the BBAN do not match the rest of it (ISO 7064 MOD 97-10)";
const RIB_KEY = "the RIB key does not match the bank, branch and account number";

export const MOD97_RULES: Readonly<Record<string, NationalRule>> = {
  BA: checkRule(bbanLeaves(16, 1), TWO_CHECK_DIGITS),
  ME: checkRule(bbanLeaves(18, 1), TWO_CHECK_DIGITS),
  MK: checkRule(bbanLeaves(15, 1), TWO_CHECK_DIGITS),
  PT: checkRule(bbanLeaves(21, 1), "the NIB check digits do not match the bank, branch and account number"),
  /**
   * php-iban exempts the National Bank of Serbia (bank 908) from the check (`_iban_nationalchecksum_
   * implementation_rs`, globalcitizen/php-iban c92138cb), so its accounts are never judged failed.
   */
  RS: checkRule(bbanLeaves(18, 1), TWO_CHECK_DIGITS, (codes, at) => startsWith(codes, at, "908")),
  /**
   * php-iban exempts the Bank of Slovenia (bank 01) likewise (`_iban_nationalchecksum_implementation_si`).
   */
  SI: checkRule(bbanLeaves(15, 1), TWO_CHECK_DIGITS, (codes, at) => startsWith(codes, at, "01")),
  TL: checkRule(bbanLeaves(19, 1), TWO_CHECK_DIGITS),
  /** Mauritania and Tunisia: the whole BBAN is a multiple of 97, as a French RIB of digits only is. */
  MR: checkRule(bbanLeaves(23, 0), RIB_KEY),
  TN: checkRule(
    bbanLeaves(20, 0),
    "the two national check digits at the end of the BBAN do not match the rest of it",
  ),
  BE: checkRule(belgiumHolds, "the last two digits are not the first ten modulo 97"),
};
