import { digitAt } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [7, 5, 3, 2, 1, 7, 5, 3, 2];

function hasValidCheckDigit(number: string): boolean {
  const last = number.length - 1;
  // The weights are right-aligned: the body is read as if left-padded with zeros to 9 digits.
  const offset = WEIGHTS.length - last;
  let sum = 0;
  for (let i = 0; i < last; i++) sum += (WEIGHTS[offset + i] ?? 0) * digitAt(number, i);
  return ((10 * sum) % 11) % 10 === digitAt(number, last);
}

/**
 * Romania, CUI/CIF: 2 to 10 digits without leading zeros, the last a weighted mod 11 check
 * digit. Leading zeros are rejected, as by python-stdnum, jsvat and valvat, rather than
 * silently stripped.
 * Valid: RO18547290. Check digit wrong: RO18547291.
 */
export const ro: CountryFormat = {
  countryCode: "RO",
  countryName: "Romania",
  structure: "2 to 10 digits, the first not 0",
  pattern: /^[1-9]\d{1,9}$/,
  hasValidCheckDigits: hasValidCheckDigit,
};
