/**
 * Turns an IBAN as people write it into its electronic form, one character code at a time, without
 * building intermediate strings: separators are skipped, lower-case letters are upper-cased, and a
 * leading "IBAN" or "IBAN:" label (as printed on invoices) is dropped.
 */
import { Buffer } from "node:buffer";

/** Character kind bits of the IBAN alphabet; a position's class is the set of kinds it accepts. */
export const DIGIT = 1;
export const LETTER = 2;

/** Kind of each ASCII code: DIGIT, LETTER or 0. */
export const ASCII_KIND = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ASCII_KIND[c] = DIGIT;
for (let c = 65; c <= 90; c++) ASCII_KIND[c] = LETTER;

/** What an ASCII code becomes: itself (digits, capitals), its capital, SKIP (separators), or 0 (not allowed). */
const SKIP = 1;
const ASCII_OUTPUT = new Uint8Array(128);
for (let c = 48; c <= 57; c++) ASCII_OUTPUT[c] = c;
for (let c = 65; c <= 90; c++) ASCII_OUTPUT[c] = c;
for (let c = 97; c <= 122; c++) ASCII_OUTPUT[c] = c - 32;
for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x2d, 0x2e]) ASCII_OUTPUT[c] = SKIP;

/**
 * Non-ASCII separators: no-break, typographic and ideographic spaces (U+00A0, U+2000–U+200A, U+202F,
 * U+205F, U+3000) and typographic dashes (U+2010–U+2015, U+2212), which word processors substitute,
 * and the invisible characters that ride along with copy and paste: soft hyphen (U+00AD),
 * zero-width space and joiners (U+200B–U+200D), word joiner (U+2060) and byte-order mark (U+FEFF).
 * VAT numbers ignore the same ones.
 */
function isUnicodeSeparator(c: number): boolean {
  return (
    c === 0x00a0 ||
    c === 0x00ad ||
    (c >= 0x2000 && c <= 0x200d) ||
    c === 0x2060 ||
    c === 0xfeff ||
    (c >= 0x2010 && c <= 0x2015) ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x2212 ||
    c === 0x3000
  );
}

const COLON = 0x3a;

/** No IBAN is longer than 34 characters; anything longer only needs counting, not keeping. */
const CAPACITY = 64;

/**
 * Reusable normalizer state: after `normalize(input)`, `codes[start .. start + length)` holds the
 * electronic form (up to the capacity; `length` counts all of it), or `badIndex` is the index in the
 * input of the first character that cannot be part of an IBAN.
 */
export class IbanNormalizer {
  /** Buffers, so that the result strings are decoded natively in one step rather than concatenated. */
  readonly codes = Buffer.alloc(CAPACITY);
  private readonly printed = Buffer.alloc(CAPACITY + CAPACITY / 4);
  start = 0;
  length = 0;
  /** The input already is the electronic form, so it can be used as the IBAN string as is. */
  verbatim = true;
  badIndex = -1;

  /** Reads `input` into `codes`; see the class comment for the state it leaves. */
  normalize(input: string): void {
    const codes = this.codes;
    let count = 0;
    let verbatim = true;
    let colonSeen = false;
    this.badIndex = -1;
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i);
      const output = c < 128 ? (ASCII_OUTPUT[c] as number) : isUnicodeSeparator(c) ? SKIP : 0;
      if (output > SKIP) {
        if (count < CAPACITY) codes[count] = output;
        count++;
        if (output !== c) verbatim = false;
      } else if (output === SKIP) {
        verbatim = false;
      } else if (c === COLON && !colonSeen && count === 4 && startsWithLabel(codes)) {
        colonSeen = true;
        verbatim = false;
      } else {
        // What was read before the bad character still names the country.
        this.badIndex = i;
        this.frame(Math.min(count, CAPACITY), false);
        return;
      }
    }
    this.frame(count, verbatim);
  }

  private frame(count: number, verbatim: boolean): void {
    const labelled = count >= 4 && startsWithLabel(this.codes);
    this.start = labelled ? 4 : 0;
    this.length = labelled ? count - 4 : count;
    this.verbatim = verbatim && !labelled;
  }

  /** The electronic form as a string. */
  electronicFormat(): string {
    return this.codes.toString("latin1", this.start, this.start + this.length);
  }

  /**
   * The ISO 13616 print format: groups of four separated by single spaces. When `input` (the string
   * last normalized) is already exactly that, it is returned as is.
   */
  printFormat(input: string): string {
    if (!this.verbatim && this.isPrintFormat(input)) return input;
    const { codes, start, length } = this;
    const printed = this.printed;
    let at = 0;
    for (let i = 0; i < length; i++) {
      if (i > 0 && (i & 3) === 0) printed[at++] = 0x20;
      printed[at++] = codes[start + i] as number;
    }
    return printed.toString("latin1", 0, at);
  }

  private isPrintFormat(input: string): boolean {
    const { codes, start, length } = this;
    if (start !== 0 || input.length !== length + ((length - 1) >> 2)) return false;
    for (let i = 0, at = 0; i < length; i++, at++) {
      if (i > 0 && (i & 3) === 0 && input.charCodeAt(at++) !== 0x20) return false;
      if (input.charCodeAt(at) !== codes[i]) return false;
    }
    return true;
  }
}

/** "IBAN", which no IBAN starts with: there is no country IB. */
function startsWithLabel(codes: Uint8Array): boolean {
  return codes[0] === 73 && codes[1] === 66 && codes[2] === 65 && codes[3] === 78;
}

/** How to show a character in a message: `'/'`, `'Ａ' (U+FF21)` for look-alikes, `U+0000` for controls. */
export function describeCharacter(input: string, index: number): string {
  const point = input.codePointAt(index) ?? 0;
  const hex = `U+${point.toString(16).toUpperCase().padStart(4, "0")}`;
  if (point < 0x20 || (point >= 0x7f && point <= 0x9f) || (point >= 0xd800 && point <= 0xdfff)) return hex;
  const shown = `'${String.fromCodePoint(point)}'`;
  return point < 0x7f ? shown : `${shown} (${hex})`;
}
