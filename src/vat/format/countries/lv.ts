import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [9, 1, 4, 8, 3, 10, 2, 5, 7, 6, 1];

/**
 * Latvia, PVN: 11 digits. Legal entities (first digit above 3) have a weighted sum ≡ 3 mod 11.
 * Natural persons' codes (first digit 0–3, from 2017 starting with 32 and carrying no birth
 * date) have no confirmed algorithm, so they are left to VIES.
 * Valid: LV40003521600, LV12016718008. Check digit wrong: LV40003521601.
 */
export const lv: CountryFormat = {
  countryCode: "LV",
  countryName: "Latvia",
  structure: "11 digits",
  pattern: /^\d{11}$/,
  hasValidCheckDigits: (number) => digitAt(number, 0) <= 3 || weightedSum(number, WEIGHTS) % 11 === 3,
};
