import { isMod11And10Valid } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

/**
 * Germany, USt-IdNr.: 9 digits, the first not 0, the last an ISO 7064 MOD 11,10 check digit.
 * Valid: DE136695976. Check digit wrong: DE136695978.
 */
export const de: CountryFormat = {
  countryCode: "DE",
  countryName: "Germany",
  structure: "9 digits, the first not 0",
  pattern: /^[1-9]\d{8}$/,
  hasValidCheckDigits: isMod11And10Valid,
};
