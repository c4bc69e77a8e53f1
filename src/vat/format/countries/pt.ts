import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [9, 8, 7, 6, 5, 4, 3, 2];

/**
 * Portugal, NIF: 9 digits, the last (11 − weighted sum mod 11), with 10 written as 0. The
 * first-digit rules that single libraries apply are not enforced.
 * Valid: PT501964843. Check digit wrong: PT501964842.
 */
export const pt: CountryFormat = {
  countryCode: "PT",
  countryName: "Portugal",
  structure: "9 digits",
  pattern: /^\d{9}$/,
  hasValidCheckDigits: (number) =>
    ((11 - (weightedSum(number, WEIGHTS) % 11)) % 11) % 10 === digitAt(number, 8),
};
