import { digitAt } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

function weightedRest(number: string, last: number, offset: number): number {
  let sum = 0;
  for (let i = 0; i < last; i++) sum += (1 + ((i + offset) % 9)) * digitAt(number, i);
  return sum % 11;
}

function hasValidCheckDigit(number: string): boolean {
  const last = number.length - 1;
  const rest = weightedRest(number, last, 0);
  const check = rest === 10 ? weightedRest(number, last, 2) : rest;
  return check % 10 === digitAt(number, last);
}

/**
 * Lithuania, PVM: 9 digits with 1 as the 8th (legal entities) or 12 digits with 1 as the 11th
 * (temporary payers); weighted mod 11 with a fallback weight set.
 * Valid: LT119511515, LT100001919017. Check digit wrong: LT119511516.
 */
export const lt: CountryFormat = {
  countryCode: "LT",
  countryName: "Lithuania",
  structure: "9 digits with 1 as the 8th, or 12 digits with 1 as the 11th",
  pattern: /^(?:\d{7}1\d|\d{10}1\d)$/,
  hasValidCheckDigits: hasValidCheckDigit,
};
