import { digitAt } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const EVEN_POSITION_VALUES = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21];

function hasValidCheckLetter(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < 8; i++) {
    const digit = digitAt(number, i);
    sum += i % 2 === 0 ? (EVEN_POSITION_VALUES[digit] ?? 0) : digit;
  }
  return number.charCodeAt(8) === 65 + (sum % 26);
}

/**
 * Cyprus: 8 digits and a check letter; numbers never start with 12. The first-digit rule
 * that only jsvat applies (0–5 or 9) is not enforced.
 * Valid: CY10259033P. Check letter wrong: CY10259033Z.
 */
export const cy: CountryFormat = {
  countryCode: "CY",
  countryName: "Cyprus",
  structure: "8 digits followed by a letter, not starting with 12",
  pattern: /^(?!12)\d{8}[A-Z]$/,
  hasValidCheckDigits: hasValidCheckLetter,
};
