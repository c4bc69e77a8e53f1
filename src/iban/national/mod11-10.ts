/**
 * Croatia: the bank code (7 digits) and the account number (10 digits) each end in an ISO 7064 MOD 11,10
 * check digit (ibantools `checkCroatianBBAN`; HNB's decision on the structure of account numbers).
 */
import { checkRule, digitAt, type NationalRule } from "./rule.ts";

/**
 * ISO 7064 MOD 11,10 steps from one state (1-10) to the next with each digit: s = (state + digit) mod
 * 10, or 10 for 0, then 2s mod 11. Precomputed by state × 10 + digit, so a step is one table read.
 */
const STEP = new Uint8Array(110);
for (let state = 1; state <= 10; state++) {
  for (let digit = 0; digit < 10; digit++) STEP[state * 10 + digit] = (2 * ((state + digit) % 10 || 10)) % 11;
}

/** Whether the `length` digits at `codes[from ..]` end in their MOD 11,10 check digit. */
function mod11And10Holds(codes: Uint8Array, from: number, length: number): boolean {
  let state = 10;
  for (let i = from; i < from + length - 1; i++) state = STEP[state * 10 + digitAt(codes, i)] as number;
  return (11 - state) % 10 === digitAt(codes, from + length - 1);
}

export const MOD11_10_RULES: Readonly<Record<string, NationalRule>> = {
  HR: checkRule(
    (codes, at) => mod11And10Holds(codes, at, 7) && mod11And10Holds(codes, at + 7, 10),
    "the check digit of the bank code or of the account number does not match (ISO 7064 MOD 11,10)",
  ),
};
