import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const LEGACY = /^\d{8}$/;
const WEIGHTS = [256, 128, 64, 32, 16, 8, 4, 2];

/**
 * Greece (VIES prefix EL, ISO code GR): 9 digits, the last (Σ d·2^(8−i)) mod 11 mod 10. Old
 * 8-digit numbers were padded with a leading 0, which is put back.
 * Valid: EL094259216, EL94259216 (→ EL094259216). Check digit wrong: EL094259217.
 */
export const el: CountryFormat = {
  countryCode: "GR",
  countryName: "Greece",
  structure: "9 digits",
  pattern: /^\d{9}$/,
  restoreLeadingZeros: (number) => (LEGACY.test(number) ? `0${number}` : number),
  hasValidCheckDigits: (number) => (weightedSum(number, WEIGHTS) % 11) % 10 === digitAt(number, 8),
};
