import { digitsValue, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 1];

function hasValidCheckDigits(number: string): boolean {
  if (number.length === 5) return true;
  if (number.length === 11) return digitsValue(number, 6, 9) % 97 === digitsValue(number, 9, 11);
  // 0 is the original scheme, 42 the "9755" scheme of numbers issued since 2009 and 55 a
  // further remainder python-stdnum accepts; numbers below 100 0000 00 (Isle of Man among them)
  // only ever used the original scheme. The 3-digit branch suffix of 12-digit numbers is not checked.
  const rest = weightedSum(number, WEIGHTS) % 97;
  return digitsValue(number, 0, 3) < 100 ? rest === 0 : rest === 0 || rest === 42 || rest === 55;
}

const shared = {
  countryCode: "GB",
  structure:
    "9 digits, 12 digits (with a branch number), or GD000–GD499 / HA500–HA999 for government departments and health authorities",
  pattern: /^(?:(?!0{9})\d{9}(?:\d{3})?|GD[0-4]\d\d|HA[5-9]\d\d|GD8888[0-4]\d{4}|HA8888[5-9]\d{4})$/,
  hasValidCheckDigits,
};

/**
 * United Kingdom: 9 digits (weighted mod 97, remainder 0, 42 or 55), 12 digits (the same plus a
 * branch number), GD/HA numbers without a check digit, and their 11-character EU form
 * `GD8888nnnCC` / `HA8888nnnCC` with CC = nnn mod 97. All-zero numbers are rejected.
 * Valid: GB980780684, GB100000034, GBGD001, GBHA888856782. Check digits wrong: GB802311781.
 */
export const gb: CountryFormat = { ...shared, countryName: "United Kingdom" };

/** Northern Ireland (VIES prefix XI): the UK number space and rules, reported as country GB. */
export const xi: CountryFormat = { ...shared, countryName: "United Kingdom (Northern Ireland)" };
