/**
 * Weighted digit sums: the national checks whose check digit makes Σ weight × digit a multiple of 10 or
 * 11 (the check digit itself weighing 1), as the central banks and ECBS TR 201 describe them, and Spain's
 * CCC, whose remainders 10 and 11 fold onto the digits 1 and 0. Positions are 0-based in the BBAN.
 */
import { checkRule, digitAt, type NationalRule, startsWith } from "./rule.ts";

/** A run of the BBAN from `from` whose weighted digit sum, check digit included, is 0 modulo `modulus`. */
interface Part {
  from: number;
  weights: readonly number[];
  modulus: 10 | 11;
}

function weightedSum(codes: Uint8Array, at: number, from: number, weights: readonly number[]): number {
  let sum = 0;
  const start = at + from;
  for (let i = 0; i < weights.length; i++) sum += (weights[i] as number) * digitAt(codes, start + i);
  return sum;
}

function partHolds(codes: Uint8Array, at: number, part: Part): boolean {
  return weightedSum(codes, at, part.from, part.weights) % part.modulus === 0;
}

function partsHold(parts: readonly Part[]): (codes: Uint8Array, at: number) => boolean {
  return (codes, at) => {
    for (const part of parts) if (!partHolds(codes, at, part)) return false;
    return true;
  };
}

const repeat = (weights: readonly number[], length: number) =>
  Array.from({ length }, (_, i) => weights[i % weights.length] as number);

/** Albania: bank (3) and branch (4) digits, weights 9 7 3 1 9 7 3, check digit at 7 (ECBS TR 201). */
const ALBANIA: Part = { from: 0, weights: [9, 7, 3, 1, 9, 7, 3, 1], modulus: 10 };

/** Estonia: the 13 digits from 2, weights 7 1 3 from the left (7 3 1 from the right), check digit at 15. */
const ESTONIA: Part = { from: 2, weights: [...repeat([7, 1, 3], 13), 1], modulus: 10 };

/**
 * Hungary: weights 9 7 3 1 repeating over the bank and branch (check digit at 7) and over the account
 * (check digit at 23). A 16-digit account number ends in 8 zeros, its check digit at 15: the same sum.
 */
const HUNGARY: readonly Part[] = [
  { from: 0, weights: repeat([9, 7, 3, 1], 8), modulus: 10 },
  { from: 8, weights: repeat([9, 7, 3, 1], 16), modulus: 10 },
];

/** Poland: the bank's sort code, weights 3 9 7 1 3 9 7, check digit at 7. */
const POLAND: Part = { from: 0, weights: [3, 9, 7, 1, 3, 9, 7, 1], modulus: 10 };

/**
 * Czech Republic and Slovakia: the account prefix (6 digits from 4) and number (10 digits from 10) are
 * each a multiple of 11 under their weights, the last digit weighing 1 (the central banks' decree on
 * account numbers; Slovakia's NBS Opatrenie 8/2009).
 */
const CZECH_SLOVAK: readonly Part[] = [
  { from: 4, weights: [10, 5, 8, 4, 2, 1], modulus: 11 },
  { from: 10, weights: [6, 3, 7, 9, 10, 5, 8, 4, 2, 1], modulus: 11 },
];

/** Norway: the 10 digits before the check digit (at 10), weights 5 4 3 2 7 6 5 4 3 2; remainder 10 is never issued. */
const NORWAY: Part = { from: 0, weights: [5, 4, 3, 2, 7, 6, 5, 4, 3, 2, 1], modulus: 11 };
/**
 * ECBS TR 201 (quoted by its readers, e.g. python-stdnum's and schwifty's sources): "if digits 5 and 6 of
 * the account number are zeros, the check digit is calculated on the 7th, 8th, 9th and 10th digit". These
 * are inter-bank accounts; IbanNet.Extensions.Bban (Norway.cs) checks nothing for them. So they pass by
 * the short sum and are otherwise not judged (never `failed`).
 */
const NORWAY_DOUBLE_ZERO: Part = { from: 6, weights: [5, 4, 3, 2, 1], modulus: 11 };

/**
 * Iceland: the account holder's kennitala (BBAN 12-21): weights 3 2 7 6 5 4 3 2 over its first 8 digits,
 * check digit at 20 (remainder 10 is never issued); the last digit is the century.
 */
const ICELAND: Part = { from: 12, weights: [3, 2, 7, 6, 5, 4, 3, 2, 1], modulus: 11 };

/** Spain's weights 2^i mod 11, and the digit a remainder gives: 11 − r, with 11 → 0 and 10 → 1. */
const SPAIN_WEIGHTS = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6];
/** The bank and branch are read as if preceded by "00", so their weights start at the third. */
const SPAIN_BANK_WEIGHTS = SPAIN_WEIGHTS.slice(2);
const SPAIN_DIGIT = [0, 1, 9, 8, 7, 6, 5, 4, 3, 2, 1];

/**
 * Spain's CCC: the first control digit (at 8) over "00" + bank + branch, the second (at 9) over the
 * 10-digit account number.
 */
function spainHolds(codes: Uint8Array, at: number): boolean {
  const first = weightedSum(codes, at, 0, SPAIN_BANK_WEIGHTS) % 11;
  return (
    SPAIN_DIGIT[first] === digitAt(codes, at + 8) &&
    SPAIN_DIGIT[weightedSum(codes, at, 10, SPAIN_WEIGHTS) % 11] === digitAt(codes, at + 9)
  );
}

const CZECH_SLOVAK_FAILURE = "the account number or its prefix fails its weighted modulo-11 check";

export const WEIGHTED_RULES: Readonly<Record<string, NationalRule>> = {
  AL: checkRule(
    partsHold([ALBANIA]),
    "the check digit of the bank and branch code (the 8th digit of the BBAN) does not match",
  ),
  EE: checkRule(
    partsHold([ESTONIA]),
    "the check digit of the account number (its last digit) does not match",
  ),
  HU: checkRule(
    partsHold(HUNGARY),
    "a check digit of the bank and branch code or of the account number does not match (weights 9, 7, 3, 1)",
  ),
  PL: checkRule(
    partsHold([POLAND]),
    "the check digit of the bank's sort code (the 8th digit of the BBAN) does not match",
  ),
  CZ: checkRule(partsHold(CZECH_SLOVAK), CZECH_SLOVAK_FAILURE),
  SK: checkRule(partsHold(CZECH_SLOVAK), CZECH_SLOVAK_FAILURE),
  NO: checkRule(
    (codes, at) =>
      partHolds(codes, at, NORWAY) ||
      (startsWith(codes, at + 4, "00") && partHolds(codes, at, NORWAY_DOUBLE_ZERO)),
    "the check digit of the account number (its 11th digit) does not match",
    (codes, at) => startsWith(codes, at + 4, "00"),
  ),
  IS: checkRule(
    partsHold([ICELAND]),
    "the check digit of the account holder's kennitala (its 9th digit) does not match",
  ),
  ES: checkRule(spainHolds, "the control digits (DC) do not match the bank, branch and account number"),
};
