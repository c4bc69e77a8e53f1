import { weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [9, 7, 3, 1, 9, 7, 3, 1];

/**
 * Hungary, ANUM: 8 digits whose weighted sum is divisible by 10.
 * Valid: HU12892312. Check digit wrong: HU12892313.
 */
export const hu: CountryFormat = {
  countryCode: "HU",
  countryName: "Hungary",
  structure: "8 digits",
  pattern: /^\d{8}$/,
  hasValidCheckDigits: (number) => weightedSum(number, WEIGHTS) % 10 === 0,
};
