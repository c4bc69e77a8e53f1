import { digitsValue } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const LEGACY = /^\d{9}$/;

/**
 * Belgium, enterprise number: 10 digits starting with 0 (or 1 since 2023), the last two
 * making the whole divisible by 97. Legacy 9-digit writings get their leading 0 back.
 * Valid: BE0403019261, BE1602602623, BE403019261 (→ BE0403019261). Check digits wrong: BE0403019262.
 */
export const be: CountryFormat = {
  countryCode: "BE",
  countryName: "Belgium",
  structure: "10 digits starting with 0 or 1",
  pattern: /^(?!0{10})[01]\d{9}$/,
  restoreLeadingZeros: (number) => (LEGACY.test(number) ? `0${number}` : number),
  hasValidCheckDigits: (number) => (digitsValue(number, 0, 8) + digitsValue(number, 8, 10)) % 97 === 0,
};
