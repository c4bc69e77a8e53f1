import type { Bank } from "./schema.ts";

/**
 * The banks of one country, sorted by bank code. Codes are stored as numbers (base 36, which keeps the
 * order of equal-length codes) so that a lookup is a binary search over a Float64Array with no string
 * comparisons; BIC and name sit in parallel arrays.
 */
export interface BankTable {
  codeLength: number;
  keys: Float64Array;
  bics: readonly string[];
  names: readonly string[];
}

/** Digit value of a character code in base 36: 0-9 then A-Z; -1 for anything else. */
const BASE36 = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) BASE36[48 + i] = i;
for (let i = 0; i < 26; i++) BASE36[65 + i] = 10 + i;

/** 36^10 is still an exact double; longer codes would lose precision. */
const MAX_CODE_LENGTH = 10;

/** The numeric key of a bank code of digits and upper-case letters, or -1 if it has other characters. */
export function bankKey(code: string): number {
  let key = 0;
  for (let i = 0; i < code.length; i++) {
    const digit = BASE36[code.charCodeAt(i)] ?? -1;
    if (digit < 0) return -1;
    key = key * 36 + digit;
  }
  return key;
}

/** The key of the bank code held as character codes in `codes[from .. to)` (digits and upper-case letters). */
export function bankKeyOf(codes: Uint8Array, from: number, to: number): number {
  let key = 0;
  for (let i = from; i < to; i++) key = key * 36 + (BASE36[codes[i] as number] as number);
  return key;
}

/**
 * The bank with this key, or null. The key must come from a code of the table's `codeLength`:
 * keys of codes of different lengths can coincide ("0BAR" and "BAR").
 */
export function findBank(table: BankTable, key: number): Bank | null {
  const keys = table.keys;
  let low = 0;
  let high = keys.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = keys[middle] as number;
    if (found < key) low = middle + 1;
    else if (found > key) high = middle - 1;
    else return { name: table.names[middle] as string, bic: table.bics[middle] as string };
  }
  return null;
}

/**
 * Parses banks.tsv (`country<TAB>bank_code<TAB>bic<TAB>name`, one header line, sorted by country then
 * code) into one table per country. Throws on a malformed row, a code whose length differs from the
 * country's other codes, or rows out of order (which also catches duplicates).
 */
export function parseBanksTsv(tsv: string): Map<string, BankTable> {
  const builders = new Map<string, { codeLength: number; keys: number[]; bics: string[]; names: string[] }>();
  const lines = tsv.split("\n");
  let previousCountry = "";
  let previousKey = -1;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i] === "") continue;
    const fields = (lines[i] as string).split("\t");
    const [country = "", code = "", bic = "", name = ""] = fields;
    const key = bankKey(code);
    if (
      fields.length !== 4 ||
      country.length !== 2 ||
      key < 0 ||
      code.length > MAX_CODE_LENGTH ||
      !bic ||
      !name
    ) {
      throw new Error(`banks.tsv line ${i + 1} is malformed`);
    }
    if (country < previousCountry || (country === previousCountry && key <= previousKey)) {
      throw new Error(`banks.tsv line ${i + 1}: ${country} ${code} is out of order`);
    }
    let builder = builders.get(country);
    if (!builder) {
      builder = { codeLength: code.length, keys: [], bics: [], names: [] };
      builders.set(country, builder);
    }
    if (code.length !== builder.codeLength) {
      throw new Error(`banks.tsv line ${i + 1}: ${country} codes have ${builder.codeLength} characters`);
    }
    builder.keys.push(key);
    builder.bics.push(bic);
    builder.names.push(name);
    previousCountry = country;
    previousKey = key;
  }
  const tables = new Map<string, BankTable>();
  for (const [country, builder] of builders) {
    tables.set(country, { ...builder, keys: Float64Array.from(builder.keys) });
  }
  return tables;
}
