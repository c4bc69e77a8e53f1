/**
 * Builds registry/data/legal-forms.json, the legal-form designations name matching recognises,
 * from the vendored GLEIF ELF code list and the hand-kept additions beside it:
 *
 *   bun registry/legal-forms.ts [out-file]
 *
 * Only the countries whose VAT numbers are checked are kept, every status (a form no longer
 * available still ends the names of companies founded under it). The output depends only on the
 * two source files: re-running the script reproduces it byte for byte.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { csvRecords } from "../src/batches/csv.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ELF_FILE = "registry/sources/gleif-elf/2023-09-28-elf-code-list-v1.5.csv";
const EXTRA_FILE = "registry/sources/legal-forms-extra.tsv";
const OUT_FILE = "registry/data/legal-forms.json";

/** ISO 3166-1 codes: the EU (GR for VIES's EL), GB for Northern Ireland's XI, Switzerland, Norway. */
// biome-ignore format: a list reads best packed
export const LEGAL_FORM_COUNTRIES = [
  "AT", "BE", "BG", "CH", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GB", "GR", "HR", "HU",
  "IE", "IT", "LT", "LU", "LV", "MT", "NL", "NO", "PL", "PT", "RO", "SE", "SI", "SK",
] as const;

const COLUMNS = {
  code: "ELF Code",
  country: "Country Code (ISO 3166-1)",
  localName: "Entity Legal Form name Local name",
  transliteratedName: "Entity Legal Form name Transliterated name (per ISO 01-140-10)",
  localAbbreviations: "Abbreviations Local language",
  transliteratedAbbreviations: "Abbreviations transliterated",
} as const;

/** Per country, per ELF code, its designations. */
type Forms = Map<string, Map<string, Set<string>>>;

/**
 * The designations one name cell stands for: the name itself, and for `X (Y)` both X and Y
 * (`Gesellschaft mit beschränkter Haftung (GmbH)`, `Europese vennootschap (Societas Europaea)`).
 */
function namesOf(cell: string): string[] {
  const inner = [...cell.matchAll(/\(([^)]*)\)/g)].map((match) => match[1] ?? "");
  return [cell.replace(/\([^)]*\)/g, " "), ...inner].map(tidy);
}

/** Abbreviations are separated by `;`, a few by ` / ` (`ULC / uc`). */
function abbreviationsOf(cell: string): string[] {
  return cell.split(/;| \/ /).map(tidy);
}

const tidy = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * A designation must keep two letters or digits once punctuation is gone: single letters
 * (Lithuanian `S`, Swedish `I`) would strip initials off names.
 */
const usable = (designation: string) => designation.replace(/[^\p{L}\p{N}]/gu, "").length >= 2;

function add(forms: Forms, country: string, code: string, designations: string[]): void {
  let byCode = forms.get(country);
  if (!byCode) {
    byCode = new Map();
    forms.set(country, byCode);
  }
  let set = byCode.get(code);
  if (!set) {
    set = new Set();
    byCode.set(code, set);
  }
  for (const designation of designations) if (usable(designation)) set.add(designation);
}

/** Bounds generous for the list: 16 columns, names of a few hundred characters. */
const ELF_CSV_LIMITS = { maxFields: 64, maxRecordLength: 8192 };

function readElf(text: string, countries: ReadonlySet<string>): Forms {
  const [header, ...rows] = [...csvRecords(text, ELF_CSV_LIMITS)];
  if (!header) throw new Error(`${ELF_FILE} is empty`);
  const index = Object.fromEntries(
    Object.entries(COLUMNS).map(([key, name]) => {
      const position = header.indexOf(name);
      if (position === -1) throw new Error(`${ELF_FILE} has no column "${name}"`);
      return [key, position];
    }),
  ) as Record<keyof typeof COLUMNS, number>;
  const forms: Forms = new Map();
  for (const row of rows) {
    const cell = (key: keyof typeof COLUMNS) => row[index[key]] ?? "";
    const country = cell("country");
    if (!countries.has(country)) continue;
    add(forms, country, cell("code"), [
      ...namesOf(cell("localName")),
      ...namesOf(cell("transliteratedName")),
      ...abbreviationsOf(cell("localAbbreviations")),
      ...abbreviationsOf(cell("transliteratedAbbreviations")),
    ]);
  }
  return forms;
}

function addExtras(forms: Forms, text: string): number {
  const [header, ...lines] = text.trimEnd().split("\n");
  if (header !== "country\telf_code\tdesignation\twhy") throw new Error(`${EXTRA_FILE}: unexpected header`);
  for (const [number, line] of lines.entries()) {
    const [country = "", code = "", designation = "", why = ""] = line.split("\t");
    const where = `${EXTRA_FILE} line ${number + 2}`;
    if (!forms.get(country)?.has(code)) throw new Error(`${where}: ${country} has no ELF code ${code}`);
    if (!usable(designation) || why === "")
      throw new Error(`${where}: a designation and a reason are needed`);
    add(forms, country, code, [designation]);
  }
  return lines.length;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** One country per line, codes and designations sorted, so that a change is a small diff. */
function render(forms: Forms, source: Record<string, unknown>): string {
  const lines = [...forms.keys()].sort(byText).map((country) => {
    const byCode = forms.get(country) as Map<string, Set<string>>;
    const codes = [...byCode.keys()]
      .sort(byText)
      .filter((code) => (byCode.get(code)?.size ?? 0) > 0)
      .map((code) => [code, [...(byCode.get(code) as Set<string>)].sort(byText)]);
    return `    ${JSON.stringify(country)}: ${JSON.stringify(Object.fromEntries(codes))}`;
  });
  return `{\n  "source": ${JSON.stringify(source)},\n  "countries": {\n${lines.join(",\n")}\n  }\n}\n`;
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** The file's text, from the two sources. */
export function buildLegalForms(root: string): string {
  const elfBytes = readFileSync(join(root, ELF_FILE));
  const extraBytes = readFileSync(join(root, EXTRA_FILE));
  const countries = new Set<string>(LEGAL_FORM_COUNTRIES);
  const forms = readElf(elfBytes.toString("utf8"), countries);
  const missing = LEGAL_FORM_COUNTRIES.filter((country) => !forms.has(country));
  if (missing.length > 0) throw new Error(`${ELF_FILE} has no legal forms for ${missing.join(", ")}`);
  const extras = addExtras(forms, extraBytes.toString("utf8"));
  return render(forms, {
    name: "GLEIF ISO 20275 Entity Legal Forms code list",
    version: "1.5",
    released: "2023-09-28",
    license: "CC0 1.0 (GLEIF open data)",
    file: ELF_FILE,
    sha256: sha256(elfBytes),
    extras: { file: EXTRA_FILE, rows: extras, sha256: sha256(extraBytes) },
  });
}

if (import.meta.main) {
  const out = join(ROOT, process.argv[2] ?? OUT_FILE);
  const text = buildLegalForms(ROOT);
  writeFileSync(out, text);
  const data = JSON.parse(text) as { countries: Record<string, Record<string, string[]>> };
  const codes = Object.values(data.countries).reduce((n, byCode) => n + Object.keys(byCode).length, 0);
  console.log(`${out}: ${Object.keys(data.countries).length} countries, ${codes} legal forms`);
}
