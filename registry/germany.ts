/**
 * The German part of the registry build: each German bank's check method and IBAN rule, written as
 * registry/data/de-banks.tsv.
 *
 * - The check method is field 9 of the Bundesbank's BLZ file, as schwifty's `generated_de.json` carries
 *   it (`checksum_algo`, the same for every row of a bank code).
 * - The IBAN rule is field 14 of the extended BLZ file, which only the Bundesbank's ExtraNet publishes;
 *   gocardless/ibandit ships it per bank code, built from the Bundesbank's BLZ2.xml, and a copy of that
 *   file is vendored under registry/sources/ibandit/ (see its PROVENANCE.md).
 */
import { createHash } from "node:crypto";
import { GERMAN_BANKS_HEADER } from "../src/iban/national/germany/bank-data.ts";

/** The vendored ibandit file, as recorded in registry/sources/ibandit/PROVENANCE.md. */
export const IBANDIT = {
  repository: "https://github.com/gocardless/ibandit",
  commit: "37bc62845bd60f06c0735fd3738c5ec1029c5620",
  path: "data/german_iban_rules.yml",
  /** The commit that last changed the file ("Update BLZ data", 2025-01-23). */
  dataDate: "2025-01-23",
  sha256: "9388b3ef49257a94b3a1d451b47f38b32246842b76005ad8d04fb37eb9bae45d",
  license: "MIT, © 2014 GoCardless (registry/sources/ibandit/LICENSE)",
} as const;

/** Distinct check methods among the bundled German banks (the issue counts 92); the build checks it. */
const EXPECTED_METHODS = 92;

export interface GermanBankRow {
  code: string;
  method: string;
  ibanRule: string;
}

export interface GermanBanks {
  tsv: string;
  rows: GermanBankRow[];
  /** Banks for which the sources disagree or one is silent, one line each, for the build log. */
  notes: string[];
}

/**
 * Joins the bundled German bank codes with their check method (schwifty) and IBAN rule (ibandit).
 * Throws when a bank has no method, when one bank code carries two methods, or when the number of
 * distinct methods changes (a new method would need an implementation).
 */
export function buildGermanBanks(
  codes: readonly string[],
  schwiftyRows: unknown,
  ibanditYaml: Buffer,
): GermanBanks {
  const digest = createHash("sha256").update(ibanditYaml).digest("hex");
  if (digest !== IBANDIT.sha256)
    throw new Error(`german_iban_rules.yml: sha256 ${digest}, expected ${IBANDIT.sha256}`);
  const methods = schwiftyMethods(schwiftyRows);
  const ibandit = parseIbanditRules(ibanditYaml.toString("utf8"));
  const notes: string[] = [];
  const rows = [...codes].sort().map((code) => {
    const method = methods.get(code);
    if (!method) throw new Error(`DE ${code}: no check method in generated_de.json`);
    const fromIbandit = ibandit.get(code);
    if (!fromIbandit) notes.push(`DE ${code}: no IBAN rule in ibandit's table (method ${method})`);
    else if (fromIbandit.method !== method) {
      notes.push(
        `DE ${code}: method ${method} (schwifty, used) but ${fromIbandit.method} in ibandit's table`,
      );
    }
    return { code, method, ibanRule: fromIbandit?.rule ?? "" };
  });
  const distinct = new Set(rows.map((row) => row.method)).size;
  if (distinct !== EXPECTED_METHODS) {
    throw new Error(`German banks use ${distinct} check methods, expected ${EXPECTED_METHODS}`);
  }
  const lines = rows.map((row) => `${row.code}\t${row.method}\t${row.ibanRule}`);
  return { tsv: `${GERMAN_BANKS_HEADER}\n${lines.join("\n")}\n`, rows, notes };
}

interface SchwiftyRow {
  bank_code?: string;
  checksum_algo?: string;
}

/** Bank code → check method from schwifty's generated_de.json (a list of rows). */
function schwiftyMethods(rows: unknown): Map<string, string> {
  if (!Array.isArray(rows)) throw new Error("generated_de.json: expected a list of rows");
  const methods = new Map<string, string>();
  for (const row of rows as SchwiftyRow[]) {
    const code = (row.bank_code ?? "").trim();
    const method = row.checksum_algo ?? "";
    if (!/^\d{8}$/.test(code) || !/^[0-9A-E]\d$/.test(method)) {
      throw new Error(`generated_de.json: bad row ${JSON.stringify(row)}`);
    }
    const known = methods.get(code);
    if (known !== undefined && known !== method) {
      throw new Error(`DE ${code}: check methods ${known} and ${method} in generated_de.json`);
    }
    methods.set(code, method);
  }
  return methods;
}

/**
 * Reads ibandit's german_iban_rules.yml: a YAML mapping from quoted bank code to
 * `:check_digit_rule:` and `:iban_rule:` (Ruby symbols as keys). Only that exact shape is accepted,
 * so a format change fails the build instead of being misread.
 */
export function parseIbanditRules(yaml: string): Map<string, { method: string; rule: string }> {
  const rules = new Map<string, { method: string; rule: string }>();
  const lines = yaml.split("\n");
  if (lines[0] !== "---") throw new Error("german_iban_rules.yml: expected a YAML document start");
  for (let i = 1; i < lines.length; i += 3) {
    if (lines[i] === "" && i === lines.length - 1) break;
    const code = /^'(\d{8})':$/.exec(lines[i] ?? "")?.[1];
    const method = /^ {2}:check_digit_rule: '?([0-9A-E]\d)'?$/.exec(lines[i + 1] ?? "")?.[1];
    const rule = /^ {2}:iban_rule: '(\d{6})'$/.exec(lines[i + 2] ?? "")?.[1];
    if (!code || !method || !rule || rules.has(code)) {
      throw new Error(`german_iban_rules.yml line ${i + 1}: unexpected entry`);
    }
    rules.set(code, { method, rule });
  }
  return rules;
}
