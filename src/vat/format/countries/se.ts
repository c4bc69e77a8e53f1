import { isLuhnValid } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

/**
 * Sweden, momsregistreringsnummer: the 10-digit organisation number (Luhn) followed by 01.
 * Valid: SE123456789701. Check digit wrong: SE123456789601.
 */
export const se: CountryFormat = {
  countryCode: "SE",
  countryName: "Sweden",
  structure: "12 digits ending in 01",
  pattern: /^\d{10}01$/,
  hasValidCheckDigits: (number) => isLuhnValid(number, 10),
};
