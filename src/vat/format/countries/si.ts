import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [8, 7, 6, 5, 4, 3, 2];

/**
 * Slovenia, ID za DDV: 8 digits, the first not 0; the check digit is 11 − weighted sum mod 11,
 * 10 written as 0 and 11 never issued.
 * Valid: SI50223054. Check digit wrong: SI50223055.
 */
export const si: CountryFormat = {
  countryCode: "SI",
  countryName: "Slovenia",
  structure: "8 digits, the first not 0",
  pattern: /^[1-9]\d{7}$/,
  hasValidCheckDigits: (number) => {
    const check = 11 - (weightedSum(number, WEIGHTS) % 11);
    return check !== 11 && check % 10 === digitAt(number, 7);
  },
};
