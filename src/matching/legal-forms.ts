import { readFileSync } from "node:fs";
import { nameWords } from "./words.ts";

/** Per country (ISO 3166-1), per ELF code, the designations of that legal form. */
export type LegalFormData = Record<string, Record<string, string[]>>;

/** The ELF codes a designation stands for: `Ltd` is three British forms, `SA` many French ones. */
export type LegalForm = ReadonlySet<string>;

/** A name's words with a legal form taken off the end and one off the start, and those forms. */
export type WithoutLegalForms = { words: string[]; forms: LegalForm[] };

/** The legal forms of one country, looked up by the letters of their designations. */
export interface CountryLegalForms {
  /** The form a whole text designates (`GmbH`, `Gesellschaft mit beschränkter Haftung`), or null. */
  recognise(text: string): LegalForm | null;
  /**
   * Takes legal forms off the end of a name (up to two: `SA/NV`) and then one off its start
   * (`SA DANONE`, `GITHUB B.V.`, `NV OR De Vlaamse…`), the longest designation first, never the
   * name's last word.
   */
  strip(name: string[]): WithoutLegalForms;
}

const DATA_FILE = new URL("../../registry/data/legal-forms.json", import.meta.url);

/** Reads the committed legal-form data (registry/data/legal-forms.json, built by registry/legal-forms.ts). */
export function readLegalFormData(): LegalFormData {
  const parsed = JSON.parse(readFileSync(DATA_FILE, "utf8")) as { countries?: LegalFormData };
  if (typeof parsed.countries !== "object" || parsed.countries === null) {
    throw new Error("registry/data/legal-forms.json has no countries");
  }
  return parsed.countries;
}

type Index = { byLetters: Map<string, Set<string>>; longest: number };

// Designations are compared by their letters and digits alone, so that `S.à r.l.`, `Sàrl` and
// `SARL`, or `sp. z o.o.` and `Sp. z.o.o.`, are one key, however the words split.
function indexOf(forms: Record<string, string[]>): Index {
  const byLetters = new Map<string, Set<string>>();
  let longest = 0;
  for (const [code, designations] of Object.entries(forms)) {
    for (const designation of designations) {
      const designationWords = nameWords(designation);
      const key = designationWords.join("");
      if (key.length < 2) continue;
      longest = Math.max(longest, designationWords.length);
      let codes = byLetters.get(key);
      if (!codes) {
        codes = new Set();
        byLetters.set(key, codes);
      }
      codes.add(code);
    }
  }
  return { byLetters, longest };
}

const NONE: CountryLegalForms = {
  recognise: () => null,
  strip: (name) => ({ words: name, forms: [] }),
};

/**
 * The legal forms by country, each country's index built when first asked for (a request
 * touches one country; building all thirty at start-up would cost every start for nothing).
 */
export class LegalForms {
  private readonly countries = new Map<string, CountryLegalForms>();

  constructor(private readonly data: LegalFormData) {}

  of(country: string): CountryLegalForms {
    let forms = this.countries.get(country);
    if (!forms) {
      const raw = this.data[country];
      forms = raw ? countryForms(indexOf(raw)) : NONE;
      this.countries.set(country, forms);
    }
    return forms;
  }
}

function countryForms({ byLetters, longest }: Index): CountryLegalForms {
  /** The longest designation among the first or last `k` words, leaving at least one word. */
  const take = (name: string[], fromEnd: boolean): { form: LegalForm; length: number } | null => {
    for (let k = Math.min(longest, name.length - 1); k >= 1; k--) {
      const part = fromEnd ? name.slice(name.length - k) : name.slice(0, k);
      const form = byLetters.get(part.join(""));
      if (form) return { form, length: k };
    }
    return null;
  };
  return {
    recognise(text) {
      return byLetters.get(nameWords(text).join("")) ?? null;
    },
    strip(name) {
      let rest = name;
      const forms: LegalForm[] = [];
      // Two at the end for the bilingual Belgian `SA/NV`; one at the start (`SA DANONE`).
      for (let turn = 0; turn < 2; turn++) {
        const end = take(rest, true);
        if (!end) break;
        forms.push(end.form);
        rest = rest.slice(0, rest.length - end.length);
      }
      const start = take(rest, false);
      if (start) {
        forms.push(start.form);
        rest = rest.slice(start.length);
      }
      return { words: rest, forms };
    },
  };
}

/** Whether two legal forms can be the same: some ELF code designated by both. */
export function sameLegalForm(a: LegalForm, b: LegalForm): boolean {
  for (const code of a) if (b.has(code)) return true;
  return false;
}
