import { isLuhnValid } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

/**
 * Italy, partita IVA: 11 digits passing Luhn, the 7-digit company part not all 0. The tax
 * office code (digits 8–10) is not range-checked because the sources disagree on its range.
 * Valid: IT00743110157. Check digit wrong: IT00743110158.
 */
export const it: CountryFormat = {
  countryCode: "IT",
  countryName: "Italy",
  structure: "11 digits, the first 7 not all 0",
  pattern: /^(?!0{7})\d{11}$/,
  hasValidCheckDigits: (number) => isLuhnValid(number),
};
