import { digitAt, weightedSum } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4];

/**
 * Switzerland, UID (Unternehmens-Identifikationsnummer): `CHE` and 9 digits, the last a check
 * digit: 11 − weighted sum of the first 8 mod 11, 11 written as 0 and 10 never issued. The VAT
 * form adds MWST, TVA or IVA (VAT in English), which says nothing the number does not.
 * Valid: CHE-116.281.710, CHE100155212, CHE-107.787.577 IVA. Check digit wrong: CHE100155213.
 */
export const ch: CountryFormat = {
  countryCode: "CH",
  countryName: "Switzerland",
  structure: "CHE and 9 digits (CHE-123.456.789), with or without MWST, TVA, IVA or VAT after them",
  suffix: /(?:MWST|TVA|IVA|VAT)$/,
  pattern: /^E\d{9}$/,
  hasValidCheckDigits: (number) => {
    const check = (11 - (weightedSum(number, WEIGHTS, 1) % 11)) % 11;
    return check !== 10 && check === digitAt(number, 9);
  },
};
