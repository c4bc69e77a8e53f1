/**
 * The arithmetic most of the Bundesbank's check methods share: multiply some digits of the 10-digit
 * account number by weights, add the products (or their digit sums, or their last digits), and turn the
 * sum into the expected check digit by one of a few schemes. A check is a value, so the methods read as
 * a table. Positions are 1-based, left to right, as the Bundesbank numbers them ("Stelle 1" to "Stelle 10").
 */

/** How a weighted sum becomes the expected check digit. */
export const Scheme = {
  /** 10 − (sum mod 10), 10 → 0 (methods 00, 01 and kin). */
  Mod10: 0,
  /** sum mod 10 (method D7). */
  Mod10Remainder: 1,
  /** 10 − the digit sum taken until one digit is left (method 21). */
  DigitalRoot: 2,
  /** 11 − (sum mod 11); remainders 0 and 1 give 0 (method 06 and kin). */
  Mod11: 3,
  /** 11 − (sum mod 11); remainder 0 gives 0, remainder 1 has no check digit (method 02 and kin). */
  Mod11Strict: 4,
  /** The remainder itself; remainder 10 has no check digit (method 31). */
  Mod11Remainder: 5,
  /** As Mod11, but remainder 1 gives 9 (method 11). */
  Mod11Nine: 6,
  /** As Mod11, but remainder 1 gives 1, the tens digit of 10 (method 71). */
  Mod11Tens: 7,
  /** 10 − ((sum − 1) mod 11), remainder 0 gives 0 (method 17). */
  Mod11MinusOne: 8,
  /** 7 − (sum mod 7), remainder 0 gives 0 (method 93, variant 2). */
  Mod7: 9,
} as const;
export type Scheme = (typeof Scheme)[keyof typeof Scheme];

/** What each product contributes to the sum. */
export const Product = {
  Whole: 0,
  /** Its digit sum ("Quersumme"); products stay below 20, so subtracting 9 suffices. */
  DigitSum: 1,
  /** Its last digit (method 22). */
  LastDigit: 2,
} as const;
export type Product = (typeof Product)[keyof typeof Product];

export interface WeightedCheck {
  /**
   * What each digit adds at each position, product rule applied: `contributions[index × 10 + digit]`
   * (0 for positions that do not count). Precomputed, so a sum is ten table reads with no branch.
   */
  contributions: Int8Array;
  /** Where this check's scheme starts in SCHEME_DIGITS. */
  base: number;
  scheme: Scheme;
  /** Added to the sum before the scheme (method E0 adds 7). */
  offset: number;
  /** Position (1 to 10) of the check digit. */
  check: number;
}

/** Every sum fits: at most 9 weighted positions × 10 × 9, plus an offset of at most 7. */
const SUMS = 1024;

/**
 * A check over positions `from` to `to` whose weights are applied from `to` leftwards, repeating as
 * the Bundesbank writes them ("von rechts nach links mit den Ziffern 2, 3, 4, 5, 6, 7, 2, 3 ff.").
 */
export function rightToLeft(
  from: number,
  to: number,
  weights: readonly number[],
  check: number,
  scheme: Scheme,
  product: Product = Product.Whole,
  offset = 0,
): WeightedCheck {
  const byPosition = new Array<number>(10).fill(0);
  for (let position = to, i = 0; position >= from; position--, i++) {
    byPosition[position - 1] = weights[i % weights.length] as number;
  }
  return byPositions(byPosition, check, scheme, product, offset);
}

/**
 * A check whose weights are given for positions 1, 2, … in order (0 where a position does not count,
 * positions past the end of the list count as 0).
 */
export function byPositions(
  weights: readonly number[],
  check: number,
  scheme: Scheme,
  product: Product = Product.Whole,
  offset = 0,
): WeightedCheck {
  if (weights.length > 10) throw new Error("an account number has 10 positions");
  if ((weights[check - 1] ?? 0) !== 0) throw new Error(`check digit position ${check} carries a weight`);
  const contributions = new Int8Array(100);
  weights.forEach((weight, index) => {
    if (product === Product.DigitSum && weight > 2) {
      throw new Error("digit sums of products assume weights of at most 2");
    }
    for (let d = 0; d < 10; d++) {
      const whole = d * weight;
      contributions[index * 10 + d] =
        product === Product.DigitSum
          ? whole > 9
            ? whole - 9
            : whole
          : product === Product.LastDigit
            ? whole % 10
            : whole;
    }
  });
  return { contributions, base: scheme * SUMS, scheme, offset, check };
}

/** The digit at a 1-based position of the account number's digits. */
export function digit(digits: Int8Array, position: number): number {
  return digits[position - 1] as number;
}

/** The weighted sum of a check over an account's digits (before its scheme is applied). */
export function weightedSum(digits: Int8Array, check: WeightedCheck): number {
  const c = check.contributions;
  return (
    check.offset +
    (c[digits[0] as number] as number) +
    (c[10 + (digits[1] as number)] as number) +
    (c[20 + (digits[2] as number)] as number) +
    (c[30 + (digits[3] as number)] as number) +
    (c[40 + (digits[4] as number)] as number) +
    (c[50 + (digits[5] as number)] as number) +
    (c[60 + (digits[6] as number)] as number) +
    (c[70 + (digits[7] as number)] as number) +
    (c[80 + (digits[8] as number)] as number) +
    (c[90 + (digits[9] as number)] as number)
  );
}

/** The check digit a scheme gives for a sum; -1 when the sum admits no check digit. */
function schemeDigit(scheme: Scheme, sum: number): number {
  switch (scheme) {
    case Scheme.Mod10:
      return (10 - (sum % 10)) % 10;
    case Scheme.Mod10Remainder:
      return sum % 10;
    case Scheme.DigitalRoot:
      return sum === 0 ? 0 : 10 - (1 + ((sum - 1) % 9));
    case Scheme.Mod11: {
      const remainder = sum % 11;
      return remainder <= 1 ? 0 : 11 - remainder;
    }
    case Scheme.Mod11Strict: {
      const remainder = sum % 11;
      return remainder === 0 ? 0 : remainder === 1 ? -1 : 11 - remainder;
    }
    case Scheme.Mod11Remainder: {
      const remainder = sum % 11;
      return remainder === 10 ? -1 : remainder;
    }
    case Scheme.Mod11Nine: {
      const remainder = sum % 11;
      return remainder === 0 ? 0 : remainder === 1 ? 9 : 11 - remainder;
    }
    case Scheme.Mod11Tens: {
      const remainder = sum % 11;
      return remainder <= 1 ? remainder : 11 - remainder;
    }
    case Scheme.Mod11MinusOne: {
      // A sum of 0 has no check digit: the Bundesbank's "sum − 1" is then negative.
      if (sum === 0) return -1;
      const remainder = (sum - 1) % 11;
      return remainder === 0 ? 0 : 10 - remainder;
    }
    case Scheme.Mod7: {
      const remainder = sum % 7;
      return remainder === 0 ? 0 : 7 - remainder;
    }
  }
}

/**
 * SCHEME_DIGITS[scheme × 1024 + sum]: the check digit each scheme gives each sum, so that applying a
 * scheme is one table read rather than a switch and a division.
 */
const SCHEME_DIGITS = new Int8Array(Object.keys(Scheme).length * SUMS);
for (const scheme of Object.values(Scheme)) {
  for (let sum = 0; sum < SUMS; sum++) SCHEME_DIGITS[scheme * SUMS + sum] = schemeDigit(scheme, sum);
}

/** Whether the account's check digit is the one the check computes (-1, no check digit, never is). */
export function holds(digits: Int8Array, check: WeightedCheck): boolean {
  return SCHEME_DIGITS[check.base + weightedSum(digits, check)] === digits[check.check - 1];
}
