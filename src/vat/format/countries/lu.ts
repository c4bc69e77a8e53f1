import { digitsValue } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

/**
 * Luxembourg: 8 digits, the last two the first six mod 89.
 * Valid: LU15027442. Check digits wrong: LU15027443.
 */
export const lu: CountryFormat = {
  countryCode: "LU",
  countryName: "Luxembourg",
  structure: "8 digits",
  pattern: /^\d{8}$/,
  hasValidCheckDigits: (number) => digitsValue(number, 0, 6) % 89 === digitsValue(number, 6, 8),
};
