/**
 * Combines the SWIFT IBAN Registry with schwifty's IBAN registry into one structure per country code.
 * SWIFT is authoritative for what it states (lengths, structure, bank and branch positions, SEPA);
 * schwifty supplies what SWIFT leaves out (account and national check digit positions, and the countries
 * that use IBANs without being in the SWIFT registry). The exceptions are named below with their reasons.
 */
import type { CountryFormat } from "../src/iban/registry.ts";
import { expandSpec, type Span, type SwiftCountry } from "./swift-registry.ts";

/** The committed structure of one country is exactly what the service loads. */
export type CountryStructure = CountryFormat;
export type StructureSource = CountryFormat["source"];

export interface SchwiftyEntry {
  country?: string;
  in_sepa_zone?: boolean;
  bban_spec?: string;
  bban_length?: number;
  iban_spec?: string;
  iban_length?: number;
  positions?: Record<string, Span>;
  [other: string]: unknown;
}

export type SchwiftyRegistry = Record<string, SchwiftyEntry>;

/**
 * SWIFT Release 100 gives France no branch position although the French RIB has a 5-digit code guichet
 * there, and the same registry gives Monaco (same RIB layout) branch 6-10. schwifty's [5, 10] is kept.
 */
const BRANCH_WHERE_SWIFT_IS_SILENT = new Set(["FR"]);

/**
 * The Channel Islands and the Isle of Man are in the EPC list of SEPA scheme countries; SWIFT's
 * "SEPA country also includes" cell for GB leaves them out, schwifty marks them SEPA.
 */
const SEPA_TERRITORIES_NOT_LISTED_BY_SWIFT = new Set(["GG", "IM", "JE"]);

/** Deep-merges `over` into `base`: nested objects merge, everything else (arrays included) is replaced. */
export function deepMerge<T extends Record<string, unknown>>(base: T, over: Record<string, unknown>): T {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] = isPlainObject(value) && isPlainObject(current) ? deepMerge(current, value) : value;
  }
  return merged as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** schwifty's generated.json with overwrite.json deep-merged over it, per country. */
export function mergeSchwifty(generated: SchwiftyRegistry, overwrite: SchwiftyRegistry): SchwiftyRegistry {
  const merged: SchwiftyRegistry = {};
  for (const code of [...new Set([...Object.keys(generated), ...Object.keys(overwrite)])].sort()) {
    merged[code] = deepMerge(generated[code] ?? {}, overwrite[code] ?? {});
  }
  return merged;
}

export interface CombinedStructures {
  structures: Record<string, CountryStructure>;
  /** Every point where the sources state different things, one line each. */
  disagreements: string[];
}

/** Builds the structure of every code in either source and lists where the sources disagree. */
export function combineStructures(swift: SwiftCountry[], schwifty: SchwiftyRegistry): CombinedStructures {
  const structures: Record<string, CountryStructure> = {};
  const disagreements: string[] = [];
  const swiftCodes = new Set(swift.map((country) => country.code));
  for (const country of swift) {
    const structure = fromSwift(country, schwifty[country.code]);
    structures[country.code] = structure;
    disagreements.push(...compare(country.code, statement(country), schwifty[country.code], "SWIFT"));
    for (const territory of country.territories) {
      if (swiftCodes.has(territory)) throw new Error(`${territory} is both a SWIFT country and a territory`);
      const sepa =
        country.sepaAlsoIncludes.includes(territory) || SEPA_TERRITORIES_NOT_LISTED_BY_SWIFT.has(territory);
      structures[territory] = { ...structure, sepa, source: "swift-territory", parent: country.code };
      disagreements.push(
        ...compare(territory, statement(country, territory), schwifty[territory], `SWIFT (${country.code})`),
        ...compareWithParent(territory, country.code, schwifty),
      );
    }
  }
  for (const [code, entry] of Object.entries(schwifty)) {
    if (!structures[code]) structures[code] = fromSchwifty(code, entry);
  }
  const sorted: Record<string, CountryStructure> = {};
  for (const [code, structure] of Object.entries(structures).sort(([a], [b]) => (a < b ? -1 : 1))) {
    sorted[code] = checked(code, structure);
  }
  return { structures: sorted, disagreements };
}

function fromSwift(country: SwiftCountry, schwifty: SchwiftyEntry | undefined): CountryStructure {
  const context = `SWIFT ${country.code}`;
  const bbanClasses = expandSpec(country.bbanSpec, context);
  const ibanClasses = expandSpec(country.ibanSpec.slice(2), context);
  if (country.ibanSpec.slice(0, 2) !== country.code || ibanClasses !== `nn${bbanClasses}`) {
    throw new Error(`${context}: IBAN structure ${country.ibanSpec} does not match BBAN ${country.bbanSpec}`);
  }
  if (bbanClasses.length !== country.bbanLength || country.ibanLength !== country.bbanLength + 4) {
    throw new Error(`${context}: stated lengths do not match structure ${country.bbanSpec}`);
  }
  const positions = schwifty?.positions ?? {};
  const bank = country.bank;
  const branch =
    country.branch ??
    (BRANCH_WHERE_SWIFT_IS_SILENT.has(country.code) ? (positions.branch_code ?? null) : null);
  return {
    ibanLength: country.ibanLength,
    bbanSpec: country.bbanSpec,
    bbanClasses,
    bank,
    branch,
    account: accountSpan(positions, bank, branch, bbanClasses.length),
    nationalCheck: positions.national_checksum_digits ?? null,
    sepa: country.sepa,
    source: "swift",
    parent: null,
  };
}

/**
 * schwifty's account span, adjusted where its branch span was not adopted: a dropped "branch" that sits
 * directly before the account outside the bank code (the CZ/SK account prefix, EE's padding pair) is
 * part of the account number. Without a schwifty span the account is the rest of the BBAN.
 */
function accountSpan(
  positions: Record<string, Span>,
  bank: Span | null,
  branch: Span | null,
  bbanLength: number,
): Span {
  const account = positions.account_code;
  if (!account) return [Math.max(bank?.[1] ?? 0, branch?.[1] ?? 0), bbanLength];
  const dropped = positions.branch_code;
  const droppedIsSeparate =
    dropped !== undefined &&
    dropped[0] < dropped[1] &&
    !sameSpan(dropped, branch) &&
    !overlaps(dropped, bank) &&
    !overlaps(dropped, branch);
  if (droppedIsSeparate && dropped[1] === account[0]) return [dropped[0], account[1]];
  return account;
}

function fromSchwifty(code: string, entry: SchwiftyEntry): CountryStructure {
  const context = `schwifty ${code}`;
  if (!entry.bban_spec || entry.iban_length === undefined) throw new Error(`${context}: incomplete entry`);
  const positions = entry.positions ?? {};
  return {
    ibanLength: entry.iban_length,
    bbanSpec: entry.bban_spec,
    bbanClasses: expandSpec(entry.bban_spec, context),
    bank: positions.bank_code ?? null,
    branch: positions.branch_code ?? null,
    account: positions.account_code ?? null,
    nationalCheck: positions.national_checksum_digits ?? null,
    sepa: entry.in_sepa_zone === true,
    source: "schwifty",
    parent: null,
  };
}

/** Rejects a structure whose parts do not fit its BBAN, so the engine can trust every span. */
function checked(code: string, structure: CountryStructure): CountryStructure {
  const bbanLength = structure.bbanClasses.length;
  if (structure.ibanLength !== bbanLength + 4) throw new Error(`${code}: IBAN length is not BBAN length + 4`);
  const spans = [structure.bank, structure.branch, structure.account, structure.nationalCheck];
  for (const part of spans) {
    if (part && !(part[0] >= 0 && part[0] < part[1] && part[1] <= bbanLength)) {
      throw new Error(`${code}: span [${part}] does not fit a BBAN of ${bbanLength}`);
    }
  }
  const [bank, branch, account] = spans;
  if (overlaps(bank, branch) || overlaps(bank, account) || overlaps(branch, account)) {
    throw new Error(`${code}: bank, branch and account spans overlap`);
  }
  return structure;
}

function overlaps(a: Span | null | undefined, b: Span | null | undefined): boolean {
  return !!a && !!b && a[0] < b[1] && b[0] < a[1];
}

function sameSpan(a: Span | null | undefined, b: Span | null | undefined): boolean {
  return (a ?? null) === (b ?? null) || (!!a && !!b && a[0] === b[0] && a[1] === b[1]);
}

function show(span: Span | null | undefined): string {
  return span ? `[${span[0]}, ${span[1]})` : "none";
}

/** What SWIFT states about a code: its own column, or for a territory its parent's column. */
interface SwiftStatement {
  ibanLength: number;
  bbanLength: number;
  bbanSpec: string;
  sepa: boolean;
  bank: Span | null;
  branch: Span | null;
}

function statement(country: SwiftCountry, territory?: string): SwiftStatement {
  const { ibanLength, bbanLength, bbanSpec, bank, branch } = country;
  const sepa = territory ? country.sepaAlsoIncludes.includes(territory) : country.sepa;
  return { ibanLength, bbanLength, bbanSpec, sepa, bank, branch };
}

/** Where schwifty's entry for a code says something other than SWIFT. */
function compare(
  code: string,
  swift: SwiftStatement,
  schwifty: SchwiftyEntry | undefined,
  label: string,
): string[] {
  if (!schwifty) return [`${code}: in ${label}, missing from schwifty`];
  const found: string[] = [];
  const differ = (what: string, ours: unknown, theirs: unknown) => {
    if (ours !== theirs) found.push(`${code}: ${what} — ${label} ${ours}, schwifty ${theirs}`);
  };
  differ("IBAN length", swift.ibanLength, schwifty.iban_length);
  differ("BBAN length", swift.bbanLength, schwifty.bban_length);
  if (schwifty.bban_spec !== swift.bbanSpec) {
    const same =
      schwifty.bban_spec !== undefined &&
      expandSpec(schwifty.bban_spec, `schwifty ${code}`) === expandSpec(swift.bbanSpec, `SWIFT ${code}`);
    differ(
      same ? "BBAN notation (same character classes)" : "BBAN structure",
      swift.bbanSpec,
      schwifty.bban_spec,
    );
  }
  differ("SEPA", swift.sepa, schwifty.in_sepa_zone);
  const positions = schwifty.positions ?? {};
  if (!sameSpan(swift.bank, positions.bank_code))
    differ("bank position", show(swift.bank), show(positions.bank_code));
  if (!sameSpan(swift.branch, positions.branch_code)) {
    differ("branch position", show(swift.branch), show(positions.branch_code));
  }
  return found;
}

/** Where schwifty gives a territory other positions than its own entry for the parent country. */
function compareWithParent(code: string, parent: string, schwifty: SchwiftyRegistry): string[] {
  const own = schwifty[code]?.positions ?? {};
  const parents = schwifty[parent]?.positions ?? {};
  const names = [...new Set([...Object.keys(own), ...Object.keys(parents)])].sort();
  return names
    .filter((name) => !sameSpan(own[name], parents[name]))
    .map(
      (name) =>
        `${code}: ${name} — schwifty ${code} ${show(own[name])}, schwifty ${parent} ${show(parents[name])}`,
    );
}
