import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [6, 5, 7, 2, 3, 4, 5, 6, 7];

/**
 * Poland, NIP: 10 digits, the last the weighted sum of the others mod 11 (10 is never issued).
 * Valid: PL8567346215. Check digit wrong: PL8567346216.
 */
export const pl: CountryFormat = {
  countryCode: "PL",
  countryName: "Poland",
  structure: "10 digits",
  pattern: /^\d{10}$/,
  hasValidCheckDigits: (number) => weightedSum(number, WEIGHTS) % 11 === digitAt(number, 9),
};
