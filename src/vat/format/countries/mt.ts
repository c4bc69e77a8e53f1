import { weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [3, 4, 6, 7, 8, 9, 10, 1];

/**
 * Malta: 8 digits, the first not 0, whose weighted sum is divisible by 37.
 * Valid: MT11679112. Check digits wrong: MT11679113.
 */
export const mt: CountryFormat = {
  countryCode: "MT",
  countryName: "Malta",
  structure: "8 digits, the first not 0",
  pattern: /^[1-9]\d{7}$/,
  hasValidCheckDigits: (number) => weightedSum(number, WEIGHTS) % 37 === 0,
};
