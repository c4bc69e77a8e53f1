/** Finland's check digit: the Luhn check over the whole 14-digit BBAN (bank code and account number). */
import { checkRule, digitAt, type NationalRule, startsWith } from "./rule.ts";

/** Σ of the digits from the right, every second one doubled (its digit sum kept): 0 modulo 10. */
function luhnHolds(codes: Uint8Array, at: number): boolean {
  let sum = 0;
  for (let i = 13, double = false; i >= 0; i--, double = !double) {
    const digit = digitAt(codes, at + i);
    sum += double ? (digit > 4 ? 2 * digit - 9 : 2 * digit) : digit;
  }
  return sum % 10 === 0;
}

/**
 * Viva Wallet's Finnish accounts (bank code 798) are real and fail the Luhn check: FI3679823415324729 and
 * FI6879826661004681, reported with the ECBS checker's confirmation in Simplify/ibantools issue #354,
 * which then removed its Finnish check (PR #370). They are never judged failed.
 */
const isVivaWallet = (codes: Uint8Array, at: number) => startsWith(codes, at, "798");

const FINLAND = checkRule(
  luhnHolds,
  "the check digit of the account number (its last digit) fails the Luhn check",
  isVivaWallet,
);

/** Åland (AX) uses Finland's account numbers. */
export const LUHN_RULES: Readonly<Record<string, NationalRule>> = { FI: FINLAND, AX: FINLAND };
