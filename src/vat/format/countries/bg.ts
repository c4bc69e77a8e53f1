import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [1, 2, 3, 4, 5, 6, 7, 8];
const FALLBACK_WEIGHTS = [3, 4, 5, 6, 7, 8, 9, 10];

function hasValidLegalEntityCheckDigit(number: string): boolean {
  const rest = weightedSum(number, WEIGHTS) % 11;
  const check = rest === 10 ? weightedSum(number, FALLBACK_WEIGHTS) % 11 : rest;
  return check % 10 === digitAt(number, 8);
}

/**
 * Bulgaria: 9 digits for legal entities (weighted mod 11 with a fallback weight set), 10 for
 * persons and foreigners. The 10-digit schemes depend on birth dates and sources disagree,
 * so those are left to VIES.
 * Valid: BG175074752, BG7523169263. Check digit wrong: BG175074753.
 */
export const bg: CountryFormat = {
  countryCode: "BG",
  countryName: "Bulgaria",
  structure: "9 or 10 digits",
  pattern: /^\d{9,10}$/,
  hasValidCheckDigits: (number) => number.length === 10 || hasValidLegalEntityCheckDigit(number),
};
