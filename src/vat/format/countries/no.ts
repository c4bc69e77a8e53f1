import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [3, 2, 7, 6, 5, 4, 3, 2];

/**
 * Norway, organisasjonsnummer: 9 digits, the last a check digit: 11 − weighted sum of the
 * first 8 mod 11, 11 written as 0 and 10 never issued. The VAT form adds MVA.
 * Valid: NO974760673MVA, NO 988 077 917, NO995525828. Check digit wrong: NO988077918.
 */
export const no: CountryFormat = {
  countryCode: "NO",
  countryName: "Norway",
  structure: "9 digits (NO 974 760 673), with or without MVA after them",
  suffix: /MVA$/,
  pattern: /^\d{9}$/,
  hasValidCheckDigits: (number) => {
    const check = (11 - (weightedSum(number, WEIGHTS) % 11)) % 11;
    return check !== 10 && check === digitAt(number, 8);
  },
};
