import { readFileSync } from "node:fs";
import { type BankTable, bankKey, findBank, parseBanksTsv } from "./bank-directory.ts";
import { type GermanBankData, parseGermanBanksTsv } from "./national/germany/bank-data.ts";

/** A span of the BBAN, 0-based, end exclusive. */
export type Span = readonly [start: number, end: number];

/** The IBAN format of one country or territory, as committed in registry/data/iban-structures.json. */
export interface CountryFormat {
  ibanLength: number;
  bbanSpec: string;
  /** One class per BBAN position: `n` digit, `a` upper-case letter, `c` digit or upper-case letter. */
  bbanClasses: string;
  bank: Span | null;
  branch: Span | null;
  account: Span | null;
  nationalCheck: Span | null;
  sepa: boolean;
  source: "swift" | "swift-territory" | "schwifty";
  parent: string | null;
}

export interface IbanRegistry {
  /** For example `swift-r100+schwifty-23462330 (bank data 2026-07-23)`. */
  version: string;
  formats: ReadonlyMap<string, CountryFormat>;
  /** Sorted bank tables of the countries that have bank data. */
  banks: ReadonlyMap<string, BankTable>;
  /** Check method and IBAN rule of each German bank in `banks`. */
  germany: GermanBankData;
}

/** The committed registry files, as text. */
export interface IbanRegistryFiles {
  structures: string;
  banks: string;
  germany: string;
  version: string;
}

const DATA_DIR = new URL("../../registry/data/", import.meta.url);

/** Reads the committed registry files from registry/data/ (once, at start-up). */
export function readIbanRegistryFiles(dir: URL = DATA_DIR): IbanRegistryFiles {
  const read = (name: string) => readFileSync(new URL(name, dir), "utf8");
  return {
    structures: read("iban-structures.json"),
    banks: read("banks.tsv"),
    germany: read("de-banks.tsv"),
    version: read("version.json"),
  };
}

/** Loads the bundled IBAN registry: reads the committed files and parses them. */
export function loadIbanRegistry(dir: URL = DATA_DIR): IbanRegistry {
  return parseIbanRegistry(readIbanRegistryFiles(dir));
}

/** Parses the registry files; throws when they are inconsistent, so a bad build cannot start serving. */
export function parseIbanRegistry(files: IbanRegistryFiles): IbanRegistry {
  const version = (JSON.parse(files.version) as { version?: unknown }).version;
  if (typeof version !== "string" || version === "") throw new Error("registry version.json has no version");
  const formats = new Map(Object.entries(JSON.parse(files.structures) as Record<string, CountryFormat>));
  for (const [code, format] of formats) checkFormat(code, format);
  const banks = parseBanksTsv(files.banks);
  for (const [code, table] of banks) {
    const bank = formats.get(code)?.bank;
    if (!bank) throw new Error(`registry: bank data for ${code}, which has no bank code in its IBAN`);
    if (table.codeLength !== bank[1] - bank[0]) {
      throw new Error(
        `registry: ${code} bank codes have ${table.codeLength} characters, IBANs have ${bank[1] - bank[0]}`,
      );
    }
  }
  const germany = parseGermanBanksTsv(files.germany);
  checkGermanBanks(germany, banks.get("DE"));
  return { version, formats, banks, germany };
}

/** The German banks of de-banks.tsv must be exactly those of banks.tsv. */
function checkGermanBanks(germany: GermanBankData, table: BankTable | undefined): void {
  const listed = table?.keys.length ?? 0;
  for (const number of germany.banks.keys()) {
    const code = String(number).padStart(8, "0");
    if (!table || !findBank(table, bankKey(code))) {
      throw new Error(`registry: de-banks.tsv has ${code}, which banks.tsv does not list`);
    }
  }
  if (germany.banks.size !== listed) {
    throw new Error(
      `registry: ${germany.banks.size} banks in de-banks.tsv, ${listed} German banks in banks.tsv`,
    );
  }
}

function checkFormat(code: string, format: CountryFormat): void {
  const bbanLength = format.bbanClasses.length;
  const fits = (span: Span | null) =>
    span === null || (span[0] >= 0 && span[0] < span[1] && span[1] <= bbanLength);
  if (
    !/^[A-Z]{2}$/.test(code) ||
    format.ibanLength !== bbanLength + 4 ||
    !/^[nac]+$/.test(format.bbanClasses) ||
    ![format.bank, format.branch, format.account, format.nationalCheck].every(fits)
  ) {
    throw new Error(`registry: the format of ${code} is inconsistent`);
  }
}
