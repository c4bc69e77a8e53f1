/**
 * Reads schwifty's bank registry files and picks one bank per (country, bank code).
 */

export interface BankRow {
  country: string;
  code: string;
  bic: string;
  name: string;
  primary: boolean;
  /** From a hand-curated `manual_*` file rather than a `generated_*` one. */
  manual: boolean;
  /** Position in schwifty's load order (files by sorted name, rows in file order). */
  order: number;
}

interface SourceRow {
  country_code?: string;
  bank_code?: string;
  bank_codes?: string[];
  bic?: string;
  name?: string;
  short_name?: string;
  primary?: boolean;
}

interface V2File {
  expand_from: string;
  expand_into: string;
  entries: SourceRow[];
}

/**
 * Turns one registry file into rows. v1 files are a list of rows; v2 files hold entries whose
 * `expand_from` list becomes one row per value, with `primary` false unless stated.
 */
export function readBankFile(fileName: string, content: unknown, firstOrder: number): BankRow[] {
  const manual = fileName.startsWith("manual_");
  const rows: SourceRow[] = Array.isArray(content) ? content : expand(fileName, content as V2File);
  return rows.map((row, index) => ({
    country: row.country_code ?? "",
    code: (row.bank_code ?? "").trim(),
    bic: (row.bic ?? "").trim(),
    name: cleanName(row.name || row.short_name || ""),
    primary: row.primary === true,
    manual,
    order: firstOrder + index,
  }));
}

function expand(fileName: string, file: V2File): SourceRow[] {
  if (file.expand_from !== "bank_codes" || file.expand_into !== "bank_code") {
    throw new Error(`${fileName}: unexpected expansion ${file.expand_from} → ${file.expand_into}`);
  }
  return file.entries.flatMap((entry) =>
    (entry.bank_codes ?? []).map((code) => ({ ...entry, bank_codes: undefined, bank_code: code })),
  );
}

/** Names become one line of single-spaced text so that the TSV stays one row per bank. */
function cleanName(name: string): string {
  return name.replace(/\s+/g, " ").trim();
}

const BIC = /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

/**
 * The bank for each (country, code) of the given countries, among rows that have both a code and a BIC.
 * Preference, in order: a manual row (curated overrides win per key, whatever the file order), a row
 * marked primary, an institution-level BIC (8 characters or branch `XXX`) over a branch BIC, and
 * finally the earlier row in schwifty's load order.
 */
export function selectBanks(rows: BankRow[], countries: ReadonlySet<string>): BankRow[] {
  const chosen = new Map<string, BankRow>();
  for (const row of rows) {
    if (!countries.has(row.country) || row.code === "" || row.bic === "") continue;
    if (!BIC.test(row.bic)) throw new Error(`${row.country} ${row.code}: "${row.bic}" is not a BIC`);
    if (row.name === "") throw new Error(`${row.country} ${row.code}: bank without a name`);
    const key = `${row.country}\t${row.code}`;
    const current = chosen.get(key);
    if (!current || preferred(row, current)) chosen.set(key, row);
  }
  return [...chosen.values()].sort(
    (a, b) => compareText(a.country, b.country) || compareText(a.code, b.code),
  );
}

function preferred(candidate: BankRow, current: BankRow): boolean {
  const rank = (row: BankRow) => [row.manual, row.primary, isInstitutionBic(row.bic)].map(Number);
  const [a, b] = [rank(candidate), rank(current)];
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return candidate.order < current.order;
}

function isInstitutionBic(bic: string): boolean {
  return bic.length === 8 || bic.endsWith("XXX");
}

/** Code-unit order, independent of locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
