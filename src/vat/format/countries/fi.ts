import { weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1];

/**
 * Finland, ALV (Y-tunnus): 8 digits whose weighted sum is divisible by 11.
 * Valid: FI20774740. Check digit wrong: FI20774741.
 */
export const fi: CountryFormat = {
  countryCode: "FI",
  countryName: "Finland",
  structure: "8 digits",
  pattern: /^\d{8}$/,
  hasValidCheckDigits: (number) => weightedSum(number, WEIGHTS) % 11 === 0,
};
