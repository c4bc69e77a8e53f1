import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const ALPHABET = "WABCDEFGHIJKLMNOPQRSTUV";
const WEIGHTS = [8, 7, 6, 5, 4, 3, 2];
const OLD_FORM_WEIGHTS = [7, 6, 5, 4, 3];

function hasValidCheckLetter(number: string): boolean {
  const second = number.charCodeAt(1);
  const sum =
    second >= 48 && second <= 57
      ? // The 2013 form's second letter (A or H) counts with weight 9; W and no letter count 0.
        weightedSum(number, WEIGHTS) + 9 * Math.max(0, ALPHABET.indexOf(number.charAt(8)))
      : // The old form (digit, letter or + or *, 5 digits) is read as 0, digits 3–7, digit 1.
        weightedSum(number, OLD_FORM_WEIGHTS, 2) + 2 * digitAt(number, 0);
  return ALPHABET.charAt(sum % 23) === number.charAt(7);
}

/**
 * Ireland: 7 digits, a mod-23 check letter and an optional second letter, or the old form
 * (digit, letter or + or *, 5 digits, check letter).
 * Valid: IE6433435F, IE3706224MH, IE8D79739I. Check letter wrong: IE6433435E.
 */
export const ie: CountryFormat = {
  countryCode: "IE",
  countryName: "Ireland",
  structure:
    "7 digits followed by 1 or 2 letters, or (old form) a digit, a letter or + or *, 5 digits and a letter",
  pattern: /^(?:\d{7}[A-W][A-W]?|\d[A-Z+*]\d{5}[A-W])$/,
  hasValidCheckDigits: hasValidCheckLetter,
};
