/**
 * Italy and San Marino: the CIN, a check letter before ABI (5), CAB (5) and account (12, letters allowed).
 * Each of the 22 characters has a value (digits 0-9, letters A = 0 … Z = 25); characters in odd positions
 * (1st, 3rd, …) count through a fixed table, the others as their value, and the CIN is the letter of the
 * sum modulo 26 (schwifty `italy.py`, ibandit `CheckDigit.italian`).
 */
import { checkRule, type NationalRule } from "./rule.ts";

const ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];

/** The value of each character code: 0-9 for digits, 0-25 for letters. */
const VALUE = new Uint8Array(128);
for (let i = 0; i < 10; i++) VALUE[48 + i] = i;
for (let i = 0; i < 26; i++) VALUE[65 + i] = i;

/** The CIN's character code for the 22 characters at `codes[from ..]`. */
export function cinOf(codes: Uint8Array, from: number): number {
  let sum = 0;
  for (let i = 0; i < 22; i++) {
    const value = VALUE[codes[from + i] as number] as number;
    sum += i % 2 === 0 ? (ODD[value] as number) : value;
  }
  return 65 + (sum % 26);
}

const ITALY = checkRule(
  (codes, at) => cinOf(codes, at + 1) === codes[at],
  "the CIN check letter does not match the ABI, CAB and account number",
);

export const CIN_RULES: Readonly<Record<string, NationalRule>> = { IT: ITALY, SM: ITALY };
