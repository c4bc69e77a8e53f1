/**
 * Reader for the SWIFT IBAN Registry in its TXT export: Latin-1, tab-separated, CRLF, quoted cells that
 * may span lines, and transposed (one row per data element, one column per country).
 */

/** A span of the BBAN, 0-based, end exclusive. */
export type { Span } from "../src/iban/registry.ts";

import type { Span } from "../src/iban/registry.ts";

export interface SwiftCountry {
  code: string;
  name: string;
  /** Territories that use this country's format ("Country code includes other countries/territories"). */
  territories: string[];
  sepa: boolean;
  /** Territory codes listed under "SEPA country also includes" (entries that are not ISO codes are dropped). */
  sepaAlsoIncludes: string[];
  bbanSpec: string;
  bbanLength: number;
  bank: Span | null;
  branch: Span | null;
  ibanSpec: string;
  ibanLength: number;
  example: string;
}

/** Splits tab-separated text into rows of cells, honouring double-quoted cells with embedded newlines. */
export function parseTsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch !== '"') cell += ch;
      else if (text[i + 1] === '"') {
        cell += '"';
        i++;
      } else quoted = false;
    } else if (ch === '"' && cell === "") quoted = true;
    else if (ch === "\t") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      // CRLF ends the row; the LF is consumed on the next turn.
    } else if (ch === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

const LABELS = {
  name: "Name of country",
  code: "IBAN prefix country code (ISO 3166)",
  territories: "Country code includes other countries/territories",
  sepa: "SEPA country",
  sepaAlsoIncludes: "SEPA country also includes",
  bbanSpec: "BBAN structure",
  bbanLength: "BBAN length",
  bank: "Bank identifier position within the BBAN",
  branch: "Branch identifier position within the BBAN",
  ibanSpec: "IBAN structure",
  ibanLength: "IBAN length",
  example: "IBAN electronic format example",
} as const;

/** Parses the transposed registry table into one record per country column. */
export function parseSwiftRegistry(text: string): SwiftCountry[] {
  const rows = parseTsv(text);
  const byLabel = new Map(rows.map((row) => [(row[0] ?? "").trim(), row]));
  const cell = (label: keyof typeof LABELS, column: number): string => {
    const row = byLabel.get(LABELS[label]);
    if (!row) throw new Error(`SWIFT registry: row "${LABELS[label]}" is missing`);
    return (row[column] ?? "").trim();
  };
  const columns = byLabel.get(LABELS.code)?.length ?? 0;
  const countries: SwiftCountry[] = [];
  for (let column = 1; column < columns; column++) {
    const code = cell("code", column);
    countries.push({
      code,
      name: cell("name", column),
      territories: isoCodes(cell("territories", column)),
      sepa: yesNo(cell("sepa", column), code),
      sepaAlsoIncludes: isoCodes(cell("sepaAlsoIncludes", column)),
      bbanSpec: cell("bbanSpec", column),
      bbanLength: integer(cell("bbanLength", column), code),
      bank: span(cell("bank", column), code),
      branch: span(cell("branch", column), code),
      ibanSpec: cell("ibanSpec", column),
      ibanLength: integer(cell("ibanLength", column), code),
      example: cell("example", column).replace(/\s/g, ""),
    });
  }
  return countries;
}

/** "GF, GP, MF (French part)" → ["GF", "GP", "MF"]; names such as "Azores" are not codes and are dropped. */
function isoCodes(value: string): string[] {
  return value
    .split(",")
    .map((part) => part.replace(/\(.*\)/, "").trim())
    .filter((part) => /^[A-Z]{2}$/.test(part));
}

function yesNo(value: string, code: string): boolean {
  if (value === "Yes") return true;
  if (value === "No") return false;
  throw new Error(`SWIFT registry ${code}: SEPA flag "${value}" is neither Yes nor No`);
}

function integer(value: string, code: string): number {
  if (!/^\d+$/.test(value)) throw new Error(`SWIFT registry ${code}: "${value}" is not a length`);
  return Number(value);
}

/** "1-4" (1-based, inclusive) → [0, 4]; blank or "N/A" → null. */
function span(value: string, code: string): Span | null {
  if (value === "" || value === "N/A") return null;
  const match = /^(\d+)-(\d+)$/.exec(value);
  if (!match) throw new Error(`SWIFT registry ${code}: position "${value}" is not "from-to"`);
  return [Number(match[1]) - 1, Number(match[2])];
}

/**
 * Expands SWIFT structure notation ("4!n4!n12!c") into one class letter per position ("nnnnnnnncccc…").
 * Only fixed-length groups occur in the registry; anything else fails the build rather than guessing.
 * The blank-space class `e` cannot survive our input normalisation, so it fails the build too.
 */
export function expandSpec(spec: string, context: string): string {
  let classes = "";
  const group = /(\d+)(!?)([a-z])/g;
  let consumed = 0;
  for (let match = group.exec(spec); match; match = group.exec(spec)) {
    const [whole, count, fixed, kind] = match;
    if (match.index !== consumed) break;
    consumed += whole.length;
    if (fixed !== "!") throw new Error(`${context}: variable-length group "${whole}" is not supported`);
    if (kind !== "n" && kind !== "a" && kind !== "c") {
      throw new Error(`${context}: character class "${kind}" in "${spec}" is not supported`);
    }
    classes += kind.repeat(Number(count));
  }
  if (consumed !== spec.length) throw new Error(`${context}: cannot read structure "${spec}"`);
  return classes;
}
