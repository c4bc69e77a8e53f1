import { digitsValue, luhnCheckDigit } from "../check-digits.ts";
import type { CountryFormat } from "../country-format.ts";

const DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE";
const CIF_LETTERS = "JABCDEFGHI";
const NIE_LEADS = "XYZ";
const KLM_LEADS = "KLM";

function hasValidControl(number: string): boolean {
  const lead = number.charAt(0);
  const control = number.charAt(8);
  if (lead >= "0" && lead <= "9") return DNI_LETTERS.charAt(digitsValue(number, 0, 8) % 23) === control;
  const nie = NIE_LEADS.indexOf(lead);
  if (nie >= 0) return DNI_LETTERS.charAt((nie * 10_000_000 + digitsValue(number, 1, 8)) % 23) === control;
  if (KLM_LEADS.includes(lead)) return DNI_LETTERS.charAt(digitsValue(number, 1, 8) % 23) === control;
  // Organisation types disagree between sources on letter or digit controls, so either is accepted.
  const check = luhnCheckDigit(number, 1, 8);
  return control === String(check) || control === CIF_LETTERS.charAt(check);
}

/**
 * Spain, NIF: DNI (8 digits and a mod-23 letter), NIE (X/Y/Z read as 0/1/2, then as DNI),
 * K/L/M (the mod-23 letter of the 7 middle digits) or CIF (an organisation letter, 7 digits
 * and a Luhn control written as a digit or a letter).
 * Valid: ES54362315K, ESX5910266W, ESA13585625, ESP65474207. Control wrong: ES54362315Z.
 */
export const es: CountryFormat = {
  countryCode: "ES",
  countryName: "Spain",
  structure:
    "9 characters: 8 digits and a letter, or a letter (not I, O or T), 7 digits and a final letter or digit",
  pattern: /^(?:[A-HJNPQRSUVW]\d{7}[0-9A-J]|[KLMXYZ]\d{7}[A-Z]|\d{8}[A-Z])$/,
  hasValidCheckDigits: hasValidControl,
};
