/**
 * Method 29's "iterierte Transformation" (M10H), also used by methods 27, B8 and C5: each digit is
 * replaced through one of four rows of a table, the row fixed by the digit's position, and the
 * replacements are added. The check digit is 10 − (sum mod 10), 10 → 0.
 */

const ROWS = [
  [0, 1, 5, 9, 3, 7, 4, 8, 2, 6],
  [0, 1, 7, 6, 9, 8, 3, 2, 5, 4],
  [0, 1, 8, 4, 6, 2, 9, 5, 7, 3],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
];

/** The replacement of digit d at position p (1 to 9) is TABLE[(p − 1) × 10 + d]. */
const TABLE = new Int8Array(90);
for (let position = 1; position <= 9; position++) {
  // Position 9 (next to the check digit) uses row 1, position 8 row 2, and so on cyclically.
  const row = ROWS[(9 - position) % 4] as number[];
  for (let d = 0; d < 10; d++) TABLE[(position - 1) * 10 + d] = row[d] as number;
}

/** Whether digit 10 is the check digit of positions 1 to 9 under the iterated transformation. */
export function transformationHolds(digits: Int8Array): boolean {
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += TABLE[i * 10 + (digits[i] as number)] as number;
  return (10 - (sum % 10)) % 10 === digits[9];
}
