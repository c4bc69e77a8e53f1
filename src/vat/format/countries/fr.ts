import { digitsValue } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const NUMERIC_KEY = /^\d\d/;

/**
 * France, n° TVA: a 2-character key and the 9-digit SIREN. A numeric key must equal
 * (SIREN·100 + 12) mod 97, which already catches any single wrong digit. The SIREN's own
 * Luhn digit is not required (Monaco numbers have none), and keys containing a letter use
 * an unofficial algorithm, so they are left to VIES.
 * Valid: FR40303265045, FRK7399859412. Key wrong: FR84323140391.
 */
export const fr: CountryFormat = {
  countryCode: "FR",
  countryName: "France",
  structure: "2 characters (digits, or letters other than I and O) followed by the 9-digit SIREN",
  pattern: /^[0-9A-HJ-NP-Z]{2}\d{9}$/,
  hasValidCheckDigits: (number) =>
    !NUMERIC_KEY.test(number) || digitsValue(number, 0, 2) === (digitsValue(number, 2, 11) * 100 + 12) % 97,
};
