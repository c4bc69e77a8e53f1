/**
 * The Deutsche Bundesbank's check methods for German account numbers ("Prüfzifferberechnungsmethoden
 * zur Prüfung von Kontonummern auf ihre Richtigkeit"), one per two-character code, for every code that
 * the bundled bank registry assigns. Most are weighted sums (`weighted.ts`); the rest pick a variant
 * by account range or try variants in turn, as the Bundesbank describes them.
 */
import { eser52Holds, eser53Holds } from "./eser.ts";
import { transformationHolds } from "./transformation.ts";
import {
  byPositions,
  digit,
  holds,
  Product,
  rightToLeft,
  Scheme,
  type WeightedCheck,
  weightedSum,
} from "./weighted.ts";

export type GermanCheckResult = "passed" | "failed" | "not_applicable";

const FAILED = 0;
const PASSED = 1;
/** The method defines no check digit for this account (method 09, or an account range without one). */
const NO_CHECK = 2;
type Outcome = typeof FAILED | typeof PASSED | typeof NO_CHECK;

const RESULTS: readonly GermanCheckResult[] = ["failed", "passed", "not_applicable"];

type Method = (digits: Int8Array, bankCode: string) => Outcome;

const { DigitSum, LastDigit } = Product;
const TWO_TO_SEVEN = [2, 3, 4, 5, 6, 7];
const TWO_TO_TEN = [2, 3, 4, 5, 6, 7, 8, 9, 10];
const M04_WEIGHTS = [2, 3, 4, 5, 6, 7, 2, 3, 4];

// The weighted checks, named after the method (and variant) that defines them.
const C00 = rightToLeft(1, 9, [2, 1], 10, Scheme.Mod10, DigitSum);
const C01 = rightToLeft(1, 9, [3, 7, 1], 10, Scheme.Mod10);
const C02 = rightToLeft(1, 9, [2, 3, 4, 5, 6, 7, 8, 9, 2], 10, Scheme.Mod11Strict);
const C03 = rightToLeft(1, 9, [2, 1], 10, Scheme.Mod10);
const C04 = rightToLeft(1, 9, M04_WEIGHTS, 10, Scheme.Mod11Strict);
const C05 = rightToLeft(1, 9, [7, 3, 1], 10, Scheme.Mod10);
const C06 = rightToLeft(1, 9, TWO_TO_SEVEN, 10, Scheme.Mod11);
const C07 = rightToLeft(1, 9, TWO_TO_TEN, 10, Scheme.Mod11Strict);
const C10 = rightToLeft(1, 9, TWO_TO_TEN, 10, Scheme.Mod11);
const C11 = rightToLeft(1, 9, TWO_TO_TEN, 10, Scheme.Mod11Nine);
const C13 = rightToLeft(2, 7, [2, 1], 8, Scheme.Mod10, DigitSum);
/**
 * Method 13 (and 63) with the sub-account "00" left off, the number two places further right; also
 * method 41 with a 9 in position 4, 68 for 10-digit numbers and A8's variant 2.
 */
const C13_SHIFTED = rightToLeft(4, 9, [2, 1], 10, Scheme.Mod10, DigitSum);
const C17 = rightToLeft(2, 7, [2, 1], 8, Scheme.Mod11MinusOne, DigitSum);
const C18 = rightToLeft(1, 9, [3, 9, 7, 1], 10, Scheme.Mod10);
const C19 = rightToLeft(1, 9, [2, 3, 4, 5, 6, 7, 8, 9, 1], 10, Scheme.Mod11);
const C20 = rightToLeft(1, 9, [2, 3, 4, 5, 6, 7, 8, 9, 3], 10, Scheme.Mod11);
const C21 = rightToLeft(1, 9, [2, 1], 10, Scheme.DigitalRoot);
const C22 = rightToLeft(1, 9, [3, 1], 10, Scheme.Mod10, LastDigit);
const C25 = rightToLeft(2, 9, [2, 3, 4, 5, 6, 7, 8, 9], 10, Scheme.Mod11);
const C26 = rightToLeft(1, 7, [...TWO_TO_SEVEN, 2], 8, Scheme.Mod11);
const C26_SHIFTED = rightToLeft(3, 9, [...TWO_TO_SEVEN, 2], 10, Scheme.Mod11);
const C28 = rightToLeft(1, 7, [2, 3, 4, 5, 6, 7, 8], 8, Scheme.Mod11);
const C30 = byPositions([2, 0, 0, 0, 0, 1, 2, 1, 2], 10, Scheme.Mod10);
const C31 = byPositions([1, 2, 3, 4, 5, 6, 7, 8, 9], 10, Scheme.Mod11Remainder);
/** Also A4's and A8's variant 1, B3's for numbers not starting with 9, and 98's second try. */
const C32 = rightToLeft(4, 9, TWO_TO_SEVEN, 10, Scheme.Mod11);
/** Also A4's variant 3 and method 93 for numbers starting with "0000". */
const C33 = rightToLeft(5, 9, [2, 3, 4, 5, 6], 10, Scheme.Mod11);
const C34 = rightToLeft(1, 7, [2, 4, 8, 5, 10, 9, 7], 8, Scheme.Mod11);
const C38 = rightToLeft(4, 9, [2, 4, 8, 5, 10, 9], 10, Scheme.Mod11);
const C40 = rightToLeft(1, 9, [2, 4, 8, 5, 10, 9, 7, 3, 6], 10, Scheme.Mod11);
const C42 = rightToLeft(2, 9, [2, 3, 4, 5, 6, 7, 8, 9], 10, Scheme.Mod11);
const C43 = rightToLeft(1, 9, [1, 2, 3, 4, 5, 6, 7, 8, 9], 10, Scheme.Mod10);
const C44 = rightToLeft(5, 9, [2, 4, 8, 5, 10], 10, Scheme.Mod11);
const C46 = rightToLeft(3, 7, [2, 3, 4, 5, 6], 8, Scheme.Mod11);
const C47 = rightToLeft(4, 8, [2, 3, 4, 5, 6], 9, Scheme.Mod11);
const C48 = rightToLeft(3, 8, TWO_TO_SEVEN, 9, Scheme.Mod11);
/**
 * Method 50 (also 91's variant 1), and the same number with one, two or three zeros of its sub-account
 * "000" left off.
 */
const C50 = [
  rightToLeft(1, 6, TWO_TO_SEVEN, 7, Scheme.Mod11),
  rightToLeft(2, 7, TWO_TO_SEVEN, 8, Scheme.Mod11),
  rightToLeft(3, 8, TWO_TO_SEVEN, 9, Scheme.Mod11),
  C32,
] as const;
/** Method 51's exception for ledger accounts (position 3 is 9), variants 1 and 2; also 88's. */
const C51_LEDGER = rightToLeft(3, 9, [2, 3, 4, 5, 6, 7, 8], 10, Scheme.Mod11);
const C51_LEDGER_FULL = rightToLeft(1, 9, TWO_TO_TEN, 10, Scheme.Mod11);
const C57_VARIANT_2 = byPositions([1, 2, 0, 1, 2, 1, 2, 1, 2, 1], 3, Scheme.Mod10, DigitSum);
const C58 = rightToLeft(5, 9, [2, 3, 4, 5, 6], 10, Scheme.Mod11Strict);
const C60 = rightToLeft(3, 9, [2, 1], 10, Scheme.Mod10, DigitSum);
const C61 = byPositions([2, 1, 2, 1, 2, 1, 2], 8, Scheme.Mod10, DigitSum);
/** Also method 67. Methods 61 and 65 when the type digit (position 9) brings positions 9 and 10 in: */
const C61_WITH_TYPE = byPositions([2, 1, 2, 1, 2, 1, 2, 0, 1, 2], 8, Scheme.Mod10, DigitSum);
const C64 = byPositions([9, 10, 5, 8, 4, 2], 7, Scheme.Mod11);
const C68_VARIANT_2 = byPositions([2, 1, 0, 0, 2, 1, 2, 1, 2], 10, Scheme.Mod10, DigitSum);
const C71 = byPositions([0, 6, 5, 4, 3, 2, 1], 10, Scheme.Mod11Tens);
/** Method 75 (C5's variant 1) for 6-digit numbers and for 9-digit numbers not starting with 9. */
const C75_SIX_DIGITS = rightToLeft(5, 9, [2, 1], 10, Scheme.Mod10, DigitSum);
const C75_NINE_DIGITS = rightToLeft(2, 6, [2, 1], 7, Scheme.Mod10, DigitSum);
const C76 = rightToLeft(2, 7, TWO_TO_SEVEN, 8, Scheme.Mod11Remainder);
const C76_SHIFTED = rightToLeft(4, 9, TWO_TO_SEVEN, 10, Scheme.Mod11Remainder);
const C91 = [
  C50[0],
  rightToLeft(1, 6, [7, 6, 5, 4, 3, 2], 7, Scheme.Mod11),
  byPositions([10, 9, 8, 7, 6, 5, 0, 4, 3, 2], 7, Scheme.Mod11),
  rightToLeft(1, 6, [2, 4, 8, 5, 10, 9], 7, Scheme.Mod11),
] as const;
const C92 = rightToLeft(4, 9, [3, 7, 1], 10, Scheme.Mod10);
/** Method 93: customer number in positions 1-5 (check digit 6) or, after "0000", 5-9 (check digit 10). */
const C93 = rightToLeft(1, 5, [2, 3, 4, 5, 6], 6, Scheme.Mod11);
const C93_MOD7 = rightToLeft(1, 5, [2, 3, 4, 5, 6], 6, Scheme.Mod7);
const C93_SHIFTED_MOD7 = rightToLeft(5, 9, [2, 3, 4, 5, 6], 10, Scheme.Mod7);
/** Also method 57's variant 1. */
const C94 = rightToLeft(1, 9, [1, 2], 10, Scheme.Mod10, DigitSum);
/** Method 06's scheme over method 04's weights: methods 16, 56, 95 and 99 build on it. */
const C95 = rightToLeft(1, 9, M04_WEIGHTS, 10, Scheme.Mod11);
const C98 = rightToLeft(3, 9, [3, 1, 7], 10, Scheme.Mod10);
const CA4_MOD7 = rightToLeft(4, 9, TWO_TO_SEVEN, 10, Scheme.Mod7);
const CC1 = rightToLeft(1, 9, [1, 2], 10, Scheme.Mod11MinusOne, DigitSum);
const CD7 = rightToLeft(1, 9, [2, 1], 10, Scheme.Mod10Remainder, DigitSum);
const CE0 = rightToLeft(1, 9, [2, 1], 10, Scheme.Mod10, DigitSum, 7);

/** A method that is one weighted check. */
function single(check: WeightedCheck): Method {
  return (digits) => (holds(digits, check) ? PASSED : FAILED);
}

/** A method whose variants are tried in order until one holds. */
function firstOf(...checks: WeightedCheck[]): Method {
  return (digits) => {
    for (const check of checks) if (holds(digits, check)) return PASSED;
    return FAILED;
  };
}

const verdict = (passes: boolean): Outcome => (passes ? PASSED : FAILED);
/** The value of the digits at positions `from` to `to` (1-based, inclusive). */
function number(digits: Int8Array, from: number, to: number): number {
  let value = 0;
  for (let index = from - 1; index < to; index++) value = value * 10 + (digits[index] as number);
  return value;
}
/** How many digits the account number has without its leading zeros. */
function significantDigits(digits: Int8Array): number {
  let index = 0;
  while (index < 10 && digits[index] === 0) index++;
  return 10 - index;
}

/** Method 13: sub-account left off ("00"), then the number sits two places further right. */
const method13: Method = (digits) =>
  verdict(holds(digits, C13) || (number(digits, 1, 2) === 0 && holds(digits, C13_SHIFTED)));

/** Method 16: as 06, but remainder 1 holds exactly when positions 9 and 10 are equal. */
const method16: Method = (digits) => {
  if (weightedSum(digits, C95) % 11 === 1) return verdict(digit(digits, 9) === digit(digits, 10));
  return verdict(holds(digits, C95));
};

/**
 * Method 24: a leading 3-6 counts as 0, a leading 9 zeroes positions 1-3; from the first non-zero
 * digit, weights 1, 2, 3, … are applied left to right, each (digit × weight + weight) mod 11 added, and
 * the check digit is the sum's last digit.
 */
const method24: Method = (digits) => {
  const first = digit(digits, 1);
  let position = first === 9 ? 4 : first >= 3 && first <= 6 ? 2 : 1;
  while (position <= 9 && digit(digits, position) === 0) position++;
  let sum = 0;
  for (let i = 0; position <= 9; position++, i++) {
    const weight = (i % 3) + 1;
    sum += (digit(digits, position) * weight + weight) % 11;
  }
  return verdict(sum % 10 === digit(digits, 10));
};

/** Method 25: remainder 1 gives check digit 0, valid only for work digits (position 2) 8 and 9. */
const method25: Method = (digits) => {
  if (weightedSum(digits, C25) % 11 === 1) {
    const work = digit(digits, 2);
    return verdict(digit(digits, 10) === 0 && (work === 8 || work === 9));
  }
  return verdict(holds(digits, C25));
};

/** Method 26: with positions 1-2 zero, the sub-account is taken as left off and the number shifted. */
const method26: Method = (digits) => verdict(holds(digits, number(digits, 1, 2) === 0 ? C26_SHIFTED : C26));

/** Method 27: method 00 up to 999 999 999, the iterated transformation from 1 000 000 000. */
const method27: Method = (digits) =>
  verdict(digit(digits, 1) === 0 ? holds(digits, C00) : transformationHolds(digits));

const method41: Method = (digits) => verdict(holds(digits, digit(digits, 4) === 9 ? C13_SHIFTED : C00));

/**
 * Method 44 has a real exception the Bundesbank describes under IBAN rule 0049 (DZ BANK, the only
 * user of this method): account numbers with a 9 in position 5, and the same numbers with their first
 * four digits moved to the end (so starting with 9), carry no check digit. Source: konto_check 6.02
 * (Michael Plugge, LGPL), `kto_check_int`, method 44, confirmed there with the bank.
 */
const method44: Method = (digits) => {
  if (holds(digits, C44)) return PASSED;
  return digit(digits, 5) === 9 || digit(digits, 1) === 9 ? NO_CHECK : FAILED;
};

/**
 * Method 50: the Bundesbank recommends a second try with the sub-account "000" left off (the number
 * then sits three places further right). konto_check (see method 44) also reads a number with one
 * leading zero and "00" at the end, or two leading zeros and "0" at the end, as having dropped one or
 * two of those zeros, after a real account number that dropped only one. `C50[n]` reads the number n
 * places further right.
 */
const method50: Method = (digits) => {
  if (holds(digits, C50[0])) return PASSED;
  const shift = Math.min(3, 10 - significantDigits(digits));
  if (shift === 0 || (shift < 3 && number(digits, 8 + shift, 10) !== 0)) return FAILED;
  return verdict(holds(digits, C50[shift] as WeightedCheck));
};

/** Method 56: results 10 and 11 are invalid, except for 10-digit numbers starting with 9 (7 and 8). */
const method56: Method = (digits) => {
  const result = 11 - (weightedSum(digits, C95) % 11);
  if (result < 10) return verdict(result === digit(digits, 10));
  if (digit(digits, 1) !== 9) return FAILED;
  return verdict(digit(digits, 10) === (result === 10 ? 7 : 8));
};

/** Method 57's variant by the first two digits, as the Bundesbank lists them (0: always invalid). */
const VARIANT_57 = new Int8Array(100);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
// biome-ignore format: the lists read as the Bundesbank writes them
const VARIANT_57_PREFIXES: readonly (readonly number[])[] = [
  [],
  [51, 55, 61, 64, 65, 66, 70, ...range(73, 82), 88, 94, 95],
  [...range(32, 39), ...range(41, 49), 52, 53, 54, ...range(56, 60), 62, 63, 67, 68, 69, 71, 72,
    ...range(83, 87), 89, 90, 92, 93, 96, 97, 98],
  [40, 50, 91, 99],
  range(1, 31),
];
VARIANT_57_PREFIXES.forEach((prefixes, variant) => {
  for (const prefix of prefixes) VARIANT_57[prefix] = variant;
});

const method57: Method = (digits) => {
  const six = number(digits, 1, 6);
  if (six === 777777 || six === 888888) return NO_CHECK;
  if (number(digits, 1, 10) === 185125434) return NO_CHECK;
  switch (VARIANT_57[number(digits, 1, 2)]) {
    case 1:
      return verdict(holds(digits, C94));
    case 2:
      return verdict(holds(digits, C57_VARIANT_2));
    case 3:
      return NO_CHECK;
    case 4: {
      // No check digit: positions 3-4 hold 01 to 12 and positions 7-9 less than 500.
      const month = number(digits, 3, 4);
      return month >= 1 && month <= 12 && number(digits, 7, 9) < 500 ? NO_CHECK : FAILED;
    }
    default:
      return FAILED;
  }
};

/** Method 58: at least 6 digits. */
const method58: Method = (digits) => verdict(significantDigits(digits) >= 6 && holds(digits, C58));

/** Method 59: numbers of fewer than 9 digits carry no check digit. */
const method59: Method = (digits) => (significantDigits(digits) < 9 ? NO_CHECK : verdict(holds(digits, C00)));

const method61: Method = (digits) => verdict(holds(digits, digit(digits, 9) === 8 ? C61_WITH_TYPE : C61));

/**
 * Method 63: position 1 must be 0. With positions 1-3 "000" the sub-account "00" may have been left
 * off, the check digit then being position 10; that reading is tried first, as konto_check does.
 */
const method63: Method = (digits) => {
  if (digit(digits, 1) !== 0) return FAILED;
  return verdict((number(digits, 2, 3) === 0 && holds(digits, C13_SHIFTED)) || holds(digits, C13));
};

const method65: Method = (digits) => verdict(holds(digits, digit(digits, 9) === 9 ? C61_WITH_TYPE : C61));

/**
 * Method 68: 6 to 10 digits. 10-digit numbers need a 9 in position 4; 9-digit numbers 400000000 to
 * 499999999 carry no check digit; shorter ones pass with or without positions 3 and 4.
 */
const method68: Method = (digits) => {
  const length = significantDigits(digits);
  if (length < 6) return FAILED;
  if (length === 10) return verdict(digit(digits, 4) === 9 && holds(digits, C13_SHIFTED));
  if (length === 9 && digit(digits, 2) === 4) return NO_CHECK;
  return verdict(holds(digits, C00) || holds(digits, C68_VARIANT_2));
};

/**
 * Method 74: 2 to 10 digits; method 00, for 6-digit numbers also the difference to the next half
 * decade (…5) of method 00's sum; then method 04.
 */
const method74: Method = (digits) => {
  const length = significantDigits(digits);
  if (length < 2) return FAILED;
  if (holds(digits, C00)) return PASSED;
  if (length === 6 && (15 - (weightedSum(digits, C00) % 10)) % 10 === digit(digits, 10)) return PASSED;
  return verdict(holds(digits, C04));
};

/**
 * Method 76: account type (position 1) 0, 4, 6, 7, 8 or 9; with the sub-account "00" left off, the
 * number sits two places further right.
 */
const INVALID_TYPE_76 = [false, true, true, true, false, true, false, false, false, false];
const method76: Method = (digits) => {
  if (INVALID_TYPE_76[digit(digits, 1)]) return FAILED;
  if (holds(digits, C76)) return PASSED;
  if (number(digits, 1, 2) !== 0 || INVALID_TYPE_76[digit(digits, 3)]) return FAILED;
  return verdict(holds(digits, C76_SHIFTED));
};

/** Method 88: with a 9 in position 3, position 3 counts too. */
const method88: Method = (digits) => verdict(holds(digits, digit(digits, 3) === 9 ? C51_LEDGER : C32));

/** Method 93: where the customer number sits depends on whether the number starts with "0000". */
function method93Holds(digits: Int8Array): boolean {
  if (number(digits, 1, 4) === 0) return holds(digits, C33) || holds(digits, C93_SHIFTED_MOD7);
  return holds(digits, C93) || holds(digits, C93_MOD7);
}

/** Method 95 (also D2's variant 1): account ranges without a check digit, else method 06's sum. */
const method95: Method = (digits) => {
  const head = number(digits, 1, 4);
  if (head <= 1 || (head >= 9 && head <= 25) || (head >= 396 && head <= 499)) return NO_CHECK;
  if ((head >= 700 && head <= 799) || (head >= 910 && head <= 989)) return NO_CHECK;
  return verdict(holds(digits, C95));
};

/** Method 96: 19, then 00; failing both, 0001300000 to 0099399999 count as correct. */
const method96: Method = (digits) => {
  if (holds(digits, C19) || holds(digits, C00)) return PASSED;
  const head = number(digits, 1, 5);
  return head >= 13 && head <= 993 ? NO_CHECK : FAILED;
};

/** Method 99: 0396000000 to 0499999999 carry no check digit. */
const method99: Method = (digits) => {
  const head = number(digits, 1, 4);
  return head >= 396 && head <= 499 ? NO_CHECK : verdict(holds(digits, C95));
};

/** A4: numbers with "99" in positions 3-4 take variant 3, the others 1 and 2; all then method 93. */
const methodA4: Method = (digits) => {
  const ledger = number(digits, 3, 4) === 99;
  const variants = ledger ? holds(digits, C33) : holds(digits, C32) || holds(digits, CA4_MOD7);
  return verdict(variants || method93Holds(digits));
};

/** A8: ledger accounts (9 in position 3) follow method 51's exception. */
const methodA8: Method = (digits) => {
  if (digit(digits, 3) === 9) return verdict(holds(digits, C51_LEDGER) || holds(digits, C51_LEDGER_FULL));
  return verdict(holds(digits, C32) || holds(digits, C13_SHIFTED));
};

/** B6: method 20 for numbers starting 1-9 or 02691-02699, else method 53 (which reads the bank code). */
const methodB6: Method = (digits, bankCode) => {
  const head = number(digits, 1, 5);
  if (digit(digits, 1) !== 0 || (head >= 2691 && head <= 2699)) return verdict(holds(digits, C20));
  return verdict(eser53Holds(digits, bankCode));
};

/** B7: only 0001000000-0005999999 and 0700000000-0899999999 carry a check digit (method 01). */
const methodB7: Method = (digits) => {
  const head = number(digits, 1, 4);
  if ((head >= 1 && head <= 5) || (head >= 700 && head <= 899)) return verdict(holds(digits, C01));
  return NO_CHECK;
};

/** B8: methods 20, then 29; failing both, 5100000000-5999999999 and 9010000000-9109999999 carry none. */
const methodB8: Method = (digits) => {
  if (holds(digits, C20) || transformationHolds(digits)) return PASSED;
  const head = number(digits, 1, 3);
  return (head >= 510 && head <= 599) || (head >= 901 && head <= 910) ? NO_CHECK : FAILED;
};

/** C0: numbers with exactly two leading zeros first try method 52 (which reads the bank code). */
const methodC0: Method = (digits, bankCode) =>
  verdict((significantDigits(digits) === 8 && eser52Holds(digits, bankCode)) || holds(digits, C20));

/** C5: the variant follows the account range; a number in none of them is invalid. */
const methodC5: Method = (digits) => {
  const first = digit(digits, 1);
  const length = significantDigits(digits);
  if (length === 6 && digit(digits, 5) <= 8) return verdict(holds(digits, C75_SIX_DIGITS));
  if (length === 9 && digit(digits, 2) <= 8) return verdict(holds(digits, C75_NINE_DIGITS));
  if (first === 1 || (first >= 4 && first <= 6) || first === 9) return verdict(transformationHolds(digits));
  if (first === 3) return verdict(holds(digits, C00));
  const head = number(digits, 1, 2);
  if ((length === 8 && digit(digits, 3) >= 3 && digit(digits, 3) <= 5) || head === 70 || head === 85) {
    return NO_CHECK;
  }
  return FAILED;
};

/** D8: 1000000000-9999999999 by method 00, 0010000000-0099999999 without a check digit. */
const methodD8: Method = (digits) => {
  const length = significantDigits(digits);
  if (length === 10) return verdict(holds(digits, C00));
  return length === 8 ? NO_CHECK : FAILED;
};

/** Every method the bundled registry assigns to a German bank, by its code. */
const METHODS = new Map<string, Method>([
  ["00", single(C00)],
  ["01", single(C01)],
  ["03", single(C03)],
  ["05", single(C05)],
  ["06", single(C06)],
  ["08", (digits) => (number(digits, 1, 10) < 60000 ? NO_CHECK : verdict(holds(digits, C00)))],
  ["09", () => NO_CHECK],
  ["10", single(C10)],
  ["11", single(C11)],
  ["13", method13],
  ["16", method16],
  ["17", single(C17)],
  ["18", single(C18)],
  ["19", single(C19)],
  ["20", single(C20)],
  ["21", single(C21)],
  ["22", single(C22)],
  ["24", method24],
  ["25", method25],
  ["26", method26],
  ["27", method27],
  ["28", single(C28)],
  ["29", (digits) => verdict(transformationHolds(digits))],
  ["30", single(C30)],
  ["31", single(C31)],
  ["32", single(C32)],
  ["33", single(C33)],
  ["34", single(C34)],
  ["38", single(C38)],
  ["40", single(C40)],
  ["41", method41],
  ["42", single(C42)],
  ["43", single(C43)],
  ["44", method44],
  ["46", single(C46)],
  ["47", single(C47)],
  ["48", single(C48)],
  ["49", firstOf(C00, C01)],
  ["50", method50],
  ["56", method56],
  ["57", method57],
  ["59", method59],
  ["60", single(C60)],
  ["61", method61],
  ["63", method63],
  ["64", single(C64)],
  ["65", method65],
  ["67", single(C61)],
  ["68", method68],
  ["71", single(C71)],
  ["74", method74],
  ["76", method76],
  ["78", (digits) => (significantDigits(digits) === 8 ? NO_CHECK : verdict(holds(digits, C00)))],
  ["88", method88],
  ["91", firstOf(...C91)],
  ["92", single(C92)],
  ["94", single(C94)],
  ["95", method95],
  ["96", method96],
  ["98", firstOf(C98, C32)],
  ["99", method99],
  ["A2", firstOf(C00, C04)],
  ["A3", firstOf(C00, C10)],
  ["A4", methodA4],
  ["A5", (digits) => verdict(holds(digits, C00) || (digit(digits, 1) !== 9 && holds(digits, C10)))],
  ["A6", (digits) => verdict(holds(digits, digit(digits, 2) === 8 ? C00 : C01))],
  ["A7", firstOf(C00, C03)],
  ["A8", methodA8],
  ["B1", firstOf(C05, C01, C00)],
  ["B2", (digits) => verdict(holds(digits, digit(digits, 1) <= 7 ? C02 : C00))],
  ["B3", (digits) => verdict(holds(digits, digit(digits, 1) <= 8 ? C32 : C06))],
  ["B5", (digits) => verdict(holds(digits, C05) || (digit(digits, 1) < 8 && holds(digits, C00)))],
  ["B6", methodB6],
  ["B7", methodB7],
  ["B8", methodB8],
  ["C0", methodC0],
  ["C1", (digits) => verdict(holds(digits, digit(digits, 1) === 5 ? CC1 : C17))],
  ["C2", firstOf(C22, C00, C04)],
  ["C3", (digits) => (digit(digits, 1) === 9 ? method58(digits, "") : verdict(holds(digits, C00)))],
  ["C5", methodC5],
  [
    "C7",
    (digits, bankCode) => (method63(digits, bankCode) === PASSED ? PASSED : verdict(holds(digits, C06))),
  ],
  ["C8", firstOf(C00, C04, C07)],
  ["C9", firstOf(C00, C07)],
  ["D0", (digits) => (number(digits, 1, 2) === 57 ? NO_CHECK : verdict(holds(digits, C20)))],
  [
    "D2",
    (digits, bankCode) => {
      const variant1 = method95(digits, bankCode);
      if (variant1 !== FAILED) return variant1;
      return holds(digits, C00) ? PASSED : method68(digits, bankCode);
    },
  ],
  ["D6", firstOf(C07, C03, C00)],
  ["D7", single(CD7)],
  ["D8", methodD8],
  ["D9", firstOf(C00, C10, C18)],
  ["E0", single(CE0)],
  ["E3", firstOf(C00, C21)],
  ["E4", firstOf(C02, C00)],
]);

/** The method codes implemented here, sorted. */
export const GERMAN_CHECK_METHODS: readonly string[] = [...METHODS.keys()].sort();

/**
 * Methods by the index of their code, (first character as 0-9 then A-E = 10-14) × 10 + second digit,
 * so that dispatch costs two character reads rather than a hash lookup.
 */
const BY_INDEX: (Method | undefined)[] = new Array(150).fill(undefined);
for (const [code, method] of METHODS) BY_INDEX[methodIndex(code)] = method;

function methodIndex(code: string): number {
  if (code.length !== 2) return -1;
  const first = code.charCodeAt(0);
  const second = code.charCodeAt(1) - 48;
  if (second < 0 || second > 9) return -1;
  if (first >= 48 && first <= 57) return (first - 48) * 10 + second;
  if (first >= 65 && first <= 69) return (first - 55) * 10 + second;
  return -1;
}

/** The account's digits, filled at each call (checks are synchronous, so one buffer serves them all). */
const digits = new Int8Array(10);

/** What filling `digits` found. */
const MALFORMED = -1;
const ALL_ZEROS = 0;
const FILLED = 1;

function fillFromString(account: string): number {
  if (account.length !== 10) return MALFORMED;
  let nonZero = 0;
  for (let i = 0; i < 10; i++) {
    const d = account.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return MALFORMED;
    digits[i] = d;
    nonZero |= d;
  }
  return nonZero === 0 ? ALL_ZEROS : FILLED;
}

function fillFromCodes(codes: Uint8Array, start: number): number {
  if (start < 0 || start + 10 > codes.length) return MALFORMED;
  let nonZero = 0;
  for (let i = 0; i < 10; i++) {
    const d = (codes[start + i] as number) - 48;
    if (d < 0 || d > 9) return MALFORMED;
    digits[i] = d;
    nonZero |= d;
  }
  return nonZero === 0 ? ALL_ZEROS : FILLED;
}

function judge(method: string, bankCode: string, filled: number): GermanCheckResult {
  const check = BY_INDEX[methodIndex(method)];
  if (check === undefined) return "not_applicable";
  return filled === FILLED ? (RESULTS[check(digits, bankCode)] as GermanCheckResult) : "failed";
}

/**
 * Checks a German account number with the Bundesbank check method its bank uses.
 *
 * `account` is the 10-digit, zero-padded Kontonummer (as in the IBAN); `bankCode` the 8-digit BLZ, which
 * methods B6 and C0 read. `not_applicable` for a method that defines no check digit for this account
 * (method 09, or the ranges some methods exempt) and for a method code not implemented here; `failed`
 * for anything else that does not hold, and under every method for an account that is not 10 digits or
 * is all zeros (no bank issues it).
 */
export function checkGermanAccount(method: string, account: string, bankCode: string): GermanCheckResult {
  return judge(method, bankCode, fillFromString(account));
}

/**
 * `checkGermanAccount` reading the account's 10 digits from character codes, `codes[start]` to
 * `codes[start + 9]`: for a caller that holds the IBAN as codes already (the engine's buffer), since
 * reading a freshly sliced string makes the runtime copy it first.
 */
export function checkGermanAccountCodes(
  method: string,
  codes: Uint8Array,
  start: number,
  bankCode: string,
): GermanCheckResult {
  return judge(method, bankCode, fillFromCodes(codes, start));
}
