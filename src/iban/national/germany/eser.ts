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
function holds(account: string, bankCode: string, first: number, tDigit: number, tail: number): boolean {
  let tailStart = tail;
  while (tailStart < 10 && account.charCodeAt(tailStart) === 48) tailStart++;
  const length = 6 + 10 - tailStart;
  if (length > MAX_LENGTH) return false;
  let sum = 0;
  let checkDigit = 0;
  for (let index = 0; index < length; index++) {
    let value: number;
    if (index < 4) {
      value = index === 2 && tDigit >= 0 ? account.charCodeAt(tDigit) : bankCode.charCodeAt(4 + index);
    } else if (index === 4) {
      value = account.charCodeAt(first);
    } else if (index === CHECK_INDEX) {
      checkDigit = account.charCodeAt(first + (tDigit >= 0 ? 2 : 1)) - 48;
      continue;
    } else {
      value = account.charCodeAt(tailStart + index - 6);
    }
    sum += (value - 48) * (WEIGHTS[length - 1 - index] as number);
  }
  const remainder = sum % 11;
  const weight = WEIGHTS[length - 1 - CHECK_INDEX] as number;
  for (let factor = 0; factor < 10; factor++) {
    if ((remainder + weight * factor) % 11 === 10) return factor === checkDigit;
  }
  return false;
}

/** Method 52 for an 8-digit account number (two leading zeros): bank `XXX5XXXX`, account `XPXXXXXX`. */
export function eser52Holds(account: string, bankCode: string): boolean {
  if (account.charCodeAt(0) !== 48 || account.charCodeAt(1) !== 48 || account.charCodeAt(2) === 48) {
    return false;
  }
  return holds(account, bankCode, 2, -1, 4);
}

/** Method 53 for a 9-digit account number: bank `XXX5XXXX`, account `XTPXXXXXX`, old number `XXTX-XP-X…`. */
export function eser53Holds(account: string, bankCode: string): boolean {
  if (account.charCodeAt(0) !== 48 || account.charCodeAt(1) === 48) return false;
  return holds(account, bankCode, 1, 2, 4);
}
