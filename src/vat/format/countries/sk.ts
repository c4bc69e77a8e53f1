import { digitsValue } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

/**
 * Slovakia, IČ DPH: 10 digits, the first not 0, the whole divisible by 11. The third-digit
 * rules of python-stdnum and jsvat disagree with each other and are not enforced.
 * Valid: SK2022749619. Check digit wrong: SK2022749618.
 */
export const sk: CountryFormat = {
  countryCode: "SK",
  countryName: "Slovakia",
  structure: "10 digits, the first not 0",
  pattern: /^[1-9]\d{9}$/,
  hasValidCheckDigits: (number) => digitsValue(number, 0, 10) % 11 === 0,
};
