/**
 * ISO 7064 MOD 97-10 as ISO 13616 applies it: the first four characters move to the end, letters
 * count as two digits (A = 10 … Z = 35), and the IBAN is valid when the remainder is 1. It runs over
 * character codes, three characters per reduction, so no digit string or BigInt is ever built.
 */

/** Value of each character code (digit 0-9, letter 10-35) and the power of ten it shifts by. */
const VALUE = new Uint8Array(128);
const SHIFT = new Uint8Array(128);
for (let i = 0; i < 10; i++) {
  VALUE[48 + i] = i;
  SHIFT[48 + i] = 10;
}
for (let i = 0; i < 26; i++) {
  VALUE[65 + i] = 10 + i;
  SHIFT[65 + i] = 100;
}

/**
 * Remainder of the rearranged IBAN held in `codes[start .. start + length)` (digits and upper-case
 * letters only): the BBAN first, then country code and check digits.
 */
export function mod97(codes: Uint8Array, start: number, length: number): number {
  return continueMod97(codes, start, start + 4, continueMod97(codes, start + 4, start + length, 0));
}

/**
 * Extends `rest` by the characters in `codes[from .. to)` (digits and upper-case letters, letters as two
 * digits): the remainder mod 97 of the number they continue. National checks of the whole BBAN (MOD
 * 97-10) use it too. Three characters add at most six digits, so `rest · 10^6 + …` stays below 2^31 and
 * the arithmetic stays in 32-bit integers.
 */
export function continueMod97(codes: Uint8Array, from: number, to: number, rest: number): number {
  let i = from;
  for (; i + 3 <= to; i += 3) {
    const a = codes[i] as number;
    const b = codes[i + 1] as number;
    const c = codes[i + 2] as number;
    const shifted =
      (rest * (SHIFT[a] as number) + (VALUE[a] as number)) * (SHIFT[b] as number) + (VALUE[b] as number);
    rest = (shifted * (SHIFT[c] as number) + (VALUE[c] as number)) % 97;
  }
  for (; i < to; i++) {
    const c = codes[i] as number;
    rest = (rest * (SHIFT[c] as number) + (VALUE[c] as number)) % 97;
  }
  return rest;
}
