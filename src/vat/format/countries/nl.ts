import { alphanumericMod97, digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const SHORT = /^\d{1,8}B\d\d$/;
const ELFPROEF_WEIGHTS = [9, 8, 7, 6, 5, 4, 3, 2];

/** The RSIN/BSN "elfproef" of companies and pre-2020 sole proprietors. */
function passesElfproef(number: string): boolean {
  return (weightedSum(number, ELFPROEF_WEIGHTS) - digitAt(number, 8)) % 11 === 0;
}

/** The btw-id given to sole proprietors since 2020: `NL` + number is ≡ 1 mod 97. */
function passesBtwId(number: string): boolean {
  return alphanumericMod97(`NL${number}`) === 1;
}

/**
 * Netherlands, btw-nummer: 9 digits, `B` and a 2-digit suffix (not 00). Either the elfproef or
 * the 2020 btw-id mod 97 must pass; a validator knowing only the elfproef rejects real sole
 * proprietors. Numbers whose 9-digit part lost its leading zeros get them back.
 * Valid: NL004495445B01, NL001266526B03, NL4495445B01 (→ NL004495445B01). Check wrong: NL123456789B01.
 */
export const nl: CountryFormat = {
  countryCode: "NL",
  countryName: "Netherlands",
  structure: "9 digits, the letter B and 2 digits (not B00)",
  pattern: /^(?!0{9})\d{9}B(?!00)\d\d$/,
  restoreLeadingZeros: (number) => (SHORT.test(number) ? number.padStart(12, "0") : number),
  hasValidCheckDigits: (number) => passesElfproef(number) || passesBtwId(number),
};
