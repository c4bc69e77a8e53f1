import { isMod11And10Valid } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

/**
 * Croatia, OIB: 11 digits, the last an ISO 7064 MOD 11,10 check digit.
 * Valid: HR33392005961. Check digit wrong: HR33392005962.
 */
export const hr: CountryFormat = {
  countryCode: "HR",
  countryName: "Croatia",
  structure: "11 digits",
  pattern: /^\d{11}$/,
  hasValidCheckDigits: isMod11And10Valid,
};
