import { weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1];

/**
 * Estonia, KMKR: 9 digits whose weighted sum is divisible by 10. Real numbers start with 10,
 * but only jsvat enforces that, so it is not checked.
 * Valid: EE100931558. Check digit wrong: EE100931559.
 */
export const ee: CountryFormat = {
  countryCode: "EE",
  countryName: "Estonia",
  structure: "9 digits",
  pattern: /^\d{9}$/,
  hasValidCheckDigits: (number) => weightedSum(number, WEIGHTS) % 10 === 0,
};
