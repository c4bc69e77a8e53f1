/**
 * Methods 52 and 53 (used by C0 and B6): the check digit belongs to the account number of the savings
 * banks' former ESER system, which is rebuilt from four digits of the bank code and the account number.
 * Its digits are weighted from the right with 2, 4, 8, 5, 10, 9, 7, 3, 6, 1, 2, 4, the check digit (the
 * old number's 6th digit) counting as 0; the check digit is the factor i for which the remainder of
 * (sum + i × the check digit's weight) divided by 11 is 10. No such factor: no valid check digit.
 */

const WEIGHTS = [2, 4, 8, 5, 10, 9, 7, 3, 6, 1, 2, 4];
const MAX_LENGTH = 12;
const CHECK_INDEX = 5;

/**
 * The old number is the bank code's digits 5 to 8 (for method 53: 5, 6, the account's T digit at index
 * `tDigit`, and 8), the account digit at index `first`, the check digit, and the account from index
 * `tail` on without its leading zeros.
 */
function holds(digits: Int8Array, bankCode: string, first: number, tDigit: number, tail: number): boolean {
  let tailStart = tail;
  while (tailStart < 10 && digits[tailStart] === 0) tailStart++;
  const length = 6 + 10 - tailStart;
  if (length > MAX_LENGTH) return false;
  let sum = 0;
  let checkDigit = 0;
  for (let index = 0; index < length; index++) {
    let value: number;
    if (index < 4) {
      value = index === 2 && tDigit >= 0 ? (digits[tDigit] as number) : bankCode.charCodeAt(4 + index) - 48;
    } else if (index === 4) {
      value = digits[first] as number;
    } else if (index === CHECK_INDEX) {
      checkDigit = digits[first + (tDigit >= 0 ? 2 : 1)] as number;
      continue;
    } else {
      value = digits[tailStart + index - 6] as number;
    }
    sum += value * (WEIGHTS[length - 1 - index] as number);
  }
  const remainder = sum % 11;
  const weight = WEIGHTS[length - 1 - CHECK_INDEX] as number;
  for (let factor = 0; factor < 10; factor++) {
    if ((remainder + weight * factor) % 11 === 10) return factor === checkDigit;
  }
  return false;
}

/** Method 52 for an 8-digit account number (two leading zeros): bank `XXX5XXXX`, account `XPXXXXXX`. */
export function eser52Holds(digits: Int8Array, bankCode: string): boolean {
  if (digits[0] !== 0 || digits[1] !== 0 || digits[2] === 0) return false;
  return holds(digits, bankCode, 2, -1, 4);
}

/** Method 53 for a 9-digit account number: bank `XXX5XXXX`, account `XTPXXXXXX`, old number `XXTX-XP-X…`. */
export function eser53Holds(digits: Int8Array, bankCode: string): boolean {
  if (digits[0] !== 0 || digits[1] === 0) return false;
  return holds(digits, bankCode, 1, 2, 4);
}
