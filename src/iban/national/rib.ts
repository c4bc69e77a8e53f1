/**
 * The French RIB key ("clé RIB"), used in France, Monaco, the French overseas departments and
 * territories and the Central African banks that took over the French layout (CEMAC: CF CG GA GQ TD;
 * and KM, DJ): bank (5), branch (5), account (11, letters allowed), key (2). Letters count as digits
 * (A and J as 1, B, K and S as 2, … I, R and Z as 9), and the 23 digits are then a multiple of 97,
 * i.e. key = 97 − ((89 × bank + 15 × branch + 3 × account) mod 97).
 */
import { checkRule, type NationalRule } from "./rule.ts";

/** The digit each character code counts as. */
const RIB_DIGIT = new Uint8Array(128);
for (let i = 0; i < 10; i++) RIB_DIGIT[48 + i] = i;
for (let i = 0; i < 26; i++) RIB_DIGIT[65 + i] = (i < 9 ? i : i < 18 ? i - 9 : i - 17) + 1;

/**
 * The remainder modulo 97 of the RIB's `length` characters at `codes[at ..]`, letters counted as digits,
 * three digits per reduction (as the IBAN's own check is computed).
 */
export function ribRemainder(codes: Uint8Array, at: number, length: number): number {
  let rest = 0;
  let i = at;
  const end = at + length;
  for (; i + 3 <= end; i += 3) {
    const three =
      (RIB_DIGIT[codes[i] as number] as number) * 100 +
      (RIB_DIGIT[codes[i + 1] as number] as number) * 10 +
      (RIB_DIGIT[codes[i + 2] as number] as number);
    rest = (rest * 1000 + three) % 97;
  }
  for (; i < end; i++) rest = (rest * 10 + (RIB_DIGIT[codes[i] as number] as number)) % 97;
  return rest;
}

const ribHolds = (codes: Uint8Array, at: number) => ribRemainder(codes, at, 23) === 0;

/** The countries and territories whose BBAN is a RIB. */
export const RIB_COUNTRIES = [
  "FR",
  "MC",
  "GF",
  "GP",
  "MQ",
  "RE",
  "PF",
  "NC",
  "PM",
  "TF",
  "WF",
  "YT",
  "BL",
  "MF",
  "CF",
  "CG",
  "GA",
  "GQ",
  "TD",
  "KM",
  "DJ",
] as const;

const RIB = checkRule(ribHolds, "the RIB key does not match the bank, branch and account number");

export const RIB_RULES: Readonly<Record<string, NationalRule>> = Object.fromEntries(
  RIB_COUNTRIES.map((country) => [country, RIB]),
);
