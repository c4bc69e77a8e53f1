/**
 * ISO 7064 MOD 97-10 as ISO 13616 applies it: the first four characters move to the end, letters
 * count as two digits (A = 10 … Z = 35), and the IBAN is valid when the remainder is 1. It runs over
 * character codes in chunks that stay exact doubles, so no digit string or BigInt is ever built.
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
 * letters only). Four characters add at most 8 digits, so reducing every fourth character keeps the
 * running value below 97·10^8 + 10^8, far inside the exact range of a double.
 */
export function mod97(codes: Uint8Array, start: number, length: number): number {
  const end = start + length;
  let rest = 0;
  let pending = 0;
  for (let i = start + 4; i < end; i++) {
    const c = codes[i] as number;
    rest = rest * (SHIFT[c] as number) + (VALUE[c] as number);
    if (++pending === 4) {
      rest %= 97;
      pending = 0;
    }
  }
  for (let i = start; i < start + 4; i++) {
    const c = codes[i] as number;
    rest = rest * (SHIFT[c] as number) + (VALUE[c] as number);
  }
  return rest % 97;
}
