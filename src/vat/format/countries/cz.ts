import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [8, 7, 6, 5, 4, 3, 2];

function hasValidLegalEntityCheckDigit(number: string): boolean {
  const check = (11 - (weightedSum(number, WEIGHTS) % 11)) % 11 || 1;
  return check % 10 === digitAt(number, 7);
}

/**
 * Czechia, DIČ: 8 digits for legal entities (weighted mod 11), 9 or 10 for individuals. The
 * individual forms are birth numbers with date and overflow rules VIES applies better than
 * we could, so only their length is checked.
 * Valid: CZ25123891, CZ682127228. Check digit wrong: CZ25123890.
 */
export const cz: CountryFormat = {
  countryCode: "CZ",
  countryName: "Czechia",
  structure: "8, 9 or 10 digits (8-digit numbers do not start with 9)",
  pattern: /^(?:[0-8]\d{7}|\d{9,10})$/,
  hasValidCheckDigits: (number) => number.length !== 8 || hasValidLegalEntityCheckDigit(number),
};
