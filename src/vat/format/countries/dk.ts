import { weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [2, 7, 6, 5, 4, 3, 2, 1];

/**
 * Denmark, CVR: 8 digits whose weighted sum is divisible by 11. A leading 0, which only
 * python-stdnum forbids, is accepted.
 * Valid: DK13585628. Check digit wrong: DK13585627.
 */
export const dk: CountryFormat = {
  countryCode: "DK",
  countryName: "Denmark",
  structure: "8 digits",
  pattern: /^\d{8}$/,
  hasValidCheckDigits: (number) => weightedSum(number, WEIGHTS) % 11 === 0,
};
