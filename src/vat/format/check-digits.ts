/**
 * Check-digit arithmetic shared by the per-country VAT rules. Every function takes a string
 * that its caller's pattern has already matched, so positions hold ASCII digits where a
 * digit is read.
 */

const ZERO = 48;

/** The value of the digit at `index`. */
export function digitAt(number: string, index: number): number {
  return number.charCodeAt(index) - ZERO;
}

/** The integer written by the digits in `[start, end)`; callers keep it below 2^53. */
export function digitsValue(number: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + digitAt(number, i);
  return value;
}

/** Σ weight·digit, the weights applied from `start` onwards. */
export function weightedSum(number: string, weights: readonly number[], start = 0): number {
  let sum = 0;
  let index = start;
  for (const weight of weights) sum += weight * digitAt(number, index++);
  return sum;
}

/**
 * Luhn sum of the digits in `[start, end)`: from the right, every second digit is doubled and
 * 9 is taken off doubles above 9. `doubleLast` doubles the rightmost digit, which is what a
 * payload still missing its check digit needs.
 */
export function luhnSum(number: string, start: number, end: number, doubleLast: boolean): number {
  let sum = 0;
  let double = doubleLast;
  for (let i = end - 1; i >= start; i--) {
    const digit = digitAt(number, i);
    sum += double ? (digit > 4 ? 2 * digit - 9 : 2 * digit) : digit;
    double = !double;
  }
  return sum;
}

/** Whether the digits in `[0, end)` pass the Luhn mod 10 check. */
export function isLuhnValid(number: string, end = number.length): boolean {
  return luhnSum(number, 0, end, false) % 10 === 0;
}

/** The Luhn check digit for the payload in `[start, end)`. */
export function luhnCheckDigit(number: string, start: number, end: number): number {
  return (10 - (luhnSum(number, start, end, true) % 10)) % 10;
}

/** Whether an all-digit number ends in its ISO 7064 MOD 11,10 check digit. */
export function isMod11And10Valid(number: string): boolean {
  const last = number.length - 1;
  let product = 10;
  for (let i = 0; i < last; i++) {
    const sum = (product + digitAt(number, i)) % 10 || 10;
    product = (2 * sum) % 11;
  }
  return (11 - product) % 10 === digitAt(number, last);
}

/**
 * The remainder mod 97 of a string of digits and upper-case letters, each letter read as its
 * base-36 value (A = 10 … Z = 35), as in ISO 7064 MOD 97-10.
 */
export function alphanumericMod97(text: string): number {
  let rest = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    rest = code >= 65 ? (rest * 100 + code - 55) % 97 : (rest * 10 + code - ZERO) % 97;
  }
  return rest;
}
