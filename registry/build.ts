/**
 * Builds the committed registry files under registry/data/ from the source data.
 *
 *   bun registry/build.ts [source-dir]
 *
 * `source-dir` defaults to ../shared/data, resolved from the repository root. The output depends only
 * on the sources: re-running the script reproduces the files byte for byte.
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type BankRow, readBankFile, selectBanks } from "./banks.ts";
import { buildGermanBanks, IBANDIT } from "./germany.ts";
import { type CountryStructure, combineStructures, mergeSchwifty } from "./structures.ts";
import { parseSwiftRegistry } from "./swift-registry.ts";

const SWIFT_FILE = "iban-structures/swift/iban-registry-100.txt";

/** Where the source files come from, as recorded in the sources' PROVENANCE.md. */
const SOURCES = {
  swift: {
    release: Number(/iban-registry-(\d+)\.txt$/.exec(SWIFT_FILE)?.[1]),
    repository: "https://github.com/negrienko/iban-ex",
    commit: "fe5ba31a46fee59e1618941bf9160bc82bb53df0",
    date: "2025-11-29",
    path: "docs/international_wide_ibans/iban-registry-100.txt",
    /** Of the original file; the copy read here keeps only its first 23 rows (the data elements). */
    gitBlob: "89a485348ac151f6ed9444ece48ed0f518b9cdd2",
    license:
      "SWIFT IBAN Registry content © SWIFT, published free of charge on swift.com; no open licence stated",
  },
  schwifty: {
    repository: "https://github.com/mdomke/schwifty",
    commit: "23462330ec05c024fecfb9f275a213709c100e1c",
    date: "2026-07-23",
    paths: ["schwifty/iban_registry/", "schwifty/bank_registry/"],
    license: "MIT, © 2021 Martin Domke (registry/data/schwifty-LICENSE)",
  },
} as const;

/** The spec's "Bank/BIC registry" table: bank codes per country. The build fails if any count differs. */
// biome-ignore format: a table reads best as a table
const BANK_CODES_PER_COUNTRY: Record<string, number> = {
  // official national directory
  AT: 864, BA: 25, BE: 771, CH: 1065, CZ: 34, DE: 3503, EE: 16, ES: 384, FI: 643, GE: 20, HR: 21,
  HU: 179, IT: 453, KZ: 49, LI: 19, LT: 287, LV: 25, MD: 18, NL: 86, NO: 2297, PL: 2999, RO: 47,
  RS: 26, SE: 36, SI: 829, SK: 37,
  // curated list (major banks only)
  AD: 6, AE: 56, BG: 24, CR: 24, CY: 7, DK: 6479, FR: 215, GB: 39, GR: 22, IE: 28, IL: 1, IS: 4,
  LU: 118, MC: 1, ME: 12, PT: 77, TR: 48,
};

const EXPECTED_SPLIT = { swift: 89, "swift-territory": 16, schwifty: 22 } as const;

function main(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const sourceDir = resolve(root, process.argv[2] ?? "../shared/data");
  const outDir = join(root, "registry", "data");
  checkProvenance(readFileSync(join(sourceDir, "PROVENANCE.md"), "utf8"));

  const swiftBytes = readFileSync(join(sourceDir, SWIFT_FILE));
  const swift = parseSwiftRegistry(swiftBytes.toString("latin1"));
  const ibanDir = join(sourceDir, "schwifty-registry", "iban_registry");
  const schwifty = mergeSchwifty(
    readJson(join(ibanDir, "generated.json")),
    readJson(join(ibanDir, "overwrite.json")),
  );
  const { structures, disagreements } = combineStructures(swift, schwifty);
  const split = countSources(structures);

  const banks = selectBanks(
    readBankRows(join(sourceDir, "schwifty-registry", "bank_registry")),
    new Set(Object.keys(BANK_CODES_PER_COUNTRY)),
  );
  const perCountry = checkBanks(banks, structures);
  const germany = buildGermanBanks(
    banks.filter((bank) => bank.country === "DE").map((bank) => bank.code),
    readJson(join(sourceDir, "schwifty-registry", "bank_registry", "generated_de.json")),
    readFileSync(join(root, "registry", "sources", "ibandit", "german_iban_rules.yml")),
  );

  const version = `swift-r${SOURCES.swift.release}+schwifty-${SOURCES.schwifty.commit.slice(0, 8)} (bank data ${SOURCES.schwifty.date})`;
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "iban-structures.json"), structuresJson(structures));
  writeFileSync(join(outDir, "banks.tsv"), banksTsv(banks));
  writeFileSync(join(outDir, "de-banks.tsv"), germany.tsv);
  writeFileSync(
    join(outDir, "version.json"),
    `${JSON.stringify(
      {
        version,
        sources: {
          ...SOURCES,
          swift: { ...SOURCES.swift, copySha256: sha256(swiftBytes) },
          ibandit: IBANDIT,
        },
        counts: {
          countries: Object.keys(structures).length,
          swift: split.swift,
          territories: split["swift-territory"],
          nationalOnly: split.schwifty,
          sepa: Object.values(structures).filter((s) => s.sepa).length,
          bankCountries: Object.keys(perCountry).length,
          bankCodes: banks.length,
        },
        bankCodesPerCountry: perCountry,
      },
      null,
      2,
    )}\n`,
  );
  copyFileSync(join(sourceDir, "schwifty-registry", "LICENSE"), join(outDir, "schwifty-LICENSE"));

  console.log(`registry ${version}`);
  console.log(`countries ${Object.keys(structures).length}: ${JSON.stringify(split)}`);
  console.log(`bank codes ${banks.length} in ${Object.keys(perCountry).length} countries`);
  console.log(`source disagreements (${disagreements.length}):`);
  for (const line of disagreements) console.log(`  ${line}`);
  console.log(`German banks ${germany.rows.length}, notes (${germany.notes.length}):`);
  for (const line of germany.notes) console.log(`  ${line}`);
}

function checkProvenance(provenance: string): void {
  for (const value of [SOURCES.swift.commit, SOURCES.swift.gitBlob, SOURCES.schwifty.commit]) {
    if (!provenance.includes(value)) throw new Error(`PROVENANCE.md does not mention ${value}`);
  }
  if (!provenance.includes(`${SOURCES.schwifty.commit}\` (${SOURCES.schwifty.date})`)) {
    throw new Error(
      `PROVENANCE.md does not date schwifty ${SOURCES.schwifty.commit} ${SOURCES.schwifty.date}`,
    );
  }
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/** All rows of all files in schwifty's load order: files by sorted name, rows in file order. */
function readBankRows(dir: string): BankRow[] {
  const rows: BankRow[] = [];
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()) {
    rows.push(...readBankFile(file, readJson<unknown>(join(dir, file)), rows.length));
  }
  return rows;
}

function countSources(structures: Record<string, CountryStructure>): typeof EXPECTED_SPLIT {
  const split = { swift: 0, "swift-territory": 0, schwifty: 0 };
  for (const structure of Object.values(structures)) split[structure.source]++;
  for (const source of Object.keys(EXPECTED_SPLIT) as (keyof typeof EXPECTED_SPLIT)[]) {
    if (split[source] !== EXPECTED_SPLIT[source]) {
      throw new Error(`expected ${EXPECTED_SPLIT[source]} ${source} countries, found ${split[source]}`);
    }
  }
  return split as typeof EXPECTED_SPLIT;
}

/**
 * Every bank code must be a possible value of the IBAN's bank field (same length, right character
 * classes), so that a lookup keyed by that field can find it; and the counts must match the spec.
 */
function checkBanks(banks: BankRow[], structures: Record<string, CountryStructure>): Record<string, number> {
  const perCountry: Record<string, number> = {};
  for (const bank of banks) {
    const structure = structures[bank.country];
    if (!structure?.bank) throw new Error(`${bank.country}: bank data but no bank position`);
    const classes = structure.bbanClasses.slice(structure.bank[0], structure.bank[1]);
    if (!fitsClasses(bank.code, classes)) {
      throw new Error(`${bank.country} ${bank.code}: does not fit the IBAN bank field ${classes}`);
    }
    perCountry[bank.country] = (perCountry[bank.country] ?? 0) + 1;
  }
  for (const [country, expected] of Object.entries(BANK_CODES_PER_COUNTRY)) {
    if (perCountry[country] !== expected) {
      throw new Error(`${country}: ${perCountry[country] ?? 0} bank codes, the spec says ${expected}`);
    }
  }
  return perCountry;
}

const CLASS_PATTERN: Record<string, string> = { n: "[0-9]", a: "[A-Z]", c: "[0-9A-Z]" };

function fitsClasses(code: string, classes: string): boolean {
  return new RegExp(`^${[...classes].map((kind) => CLASS_PATTERN[kind]).join("")}$`).test(code);
}

/** One country per line, so a change to one country is a one-line diff. */
function structuresJson(structures: Record<string, CountryStructure>): string {
  const lines = Object.entries(structures).map(
    ([code, s]) => `  ${JSON.stringify(code)}: ${JSON.stringify(s)}`,
  );
  return `{\n${lines.join(",\n")}\n}\n`;
}

function banksTsv(banks: BankRow[]): string {
  const lines = banks.map((bank) => `${bank.country}\t${bank.code}\t${bank.bic}\t${bank.name}`);
  return `country\tbank_code\tbic\tname\n${lines.join("\n")}\n`;
}

main();
