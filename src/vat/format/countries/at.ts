import { digitAt, luhnSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

/**
 * Austria, UID: `U`, 7 digits and a check digit, a Luhn variant offset by 4.
 * Valid: ATU13585627. Check digit wrong: ATU13585626.
 */
export const at: CountryFormat = {
  countryCode: "AT",
  countryName: "Austria",
  structure: "'U' followed by 8 digits",
  pattern: /^U\d{8}$/,
  hasValidCheckDigits: (number) =>
    (10 - ((luhnSum(number, 1, 8, false) + 4) % 10)) % 10 === digitAt(number, 8),
};
