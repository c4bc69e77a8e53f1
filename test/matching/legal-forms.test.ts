import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { buildLegalForms, LEGAL_FORM_COUNTRIES } from "../../registry/legal-forms.ts";
import { LegalForms, readLegalFormData, sameLegalForm } from "../../src/matching/legal-forms.ts";
import { nameWords } from "../../src/matching/words.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const forms = new LegalForms(readLegalFormData());

describe("the legal-form data", () => {
  test("the committed file is what registry/legal-forms.ts builds from the vendored sources, byte for byte", () => {
    const committed = readFileSync(new URL("registry/data/legal-forms.json", `file://${ROOT}`), "utf8");
    expect(buildLegalForms(ROOT)).toBe(committed);
  });

  test("holds every country whose numbers are checked, and its source", () => {
    const file = JSON.parse(readFileSync(`${ROOT}registry/data/legal-forms.json`, "utf8"));
    expect(Object.keys(file.countries).sort()).toEqual([...LEGAL_FORM_COUNTRIES].sort());
    expect(file.source).toMatchObject({ version: "1.5", license: "CC0 1.0 (GLEIF open data)" });
  });
});

describe("recognising a legal form", () => {
  test("abbreviations and full names of one form are the same form, however written", () => {
    const de = forms.of("DE");
    const gmbh = de.recognise("GmbH");
    expect(gmbh).not.toBeNull();
    for (const written of ["G.m.b.H.", "gmbh", "Gesellschaft mit beschränkter Haftung", "Gesellschaft mbH"]) {
      const form = de.recognise(written);
      expect(form !== null && gmbh !== null && sameLegalForm(form, gmbh)).toBe(true);
    }
    const ag = de.recognise("Aktiengesellschaft");
    expect(ag !== null && gmbh !== null && sameLegalForm(ag, gmbh)).toBe(false);
  });

  test("per country: the same letters may be another form elsewhere, or none", () => {
    const sa = (country: string) => forms.of(country).recognise("S.A.");
    const be = forms.of("BE");
    const nv = be.recognise("NV");
    const beSa = sa("BE");
    expect(nv !== null && beSa !== null && sameLegalForm(nv, beSa)).toBe(true);
    expect(forms.of("PL").recognise("sp. z o.o.")).not.toBeNull();
    expect(forms.of("LU").recognise("S.à r.l.")).not.toBeNull();
    expect(forms.of("LU").recognise("SARL")).toEqual(forms.of("LU").recognise("S.à r.l.") as Set<string>);
    expect(forms.of("CZ").recognise("s.r.o.")).not.toBeNull();
    expect(forms.of("DE").recognise("Sp. z o.o.")).toBeNull();
    expect(forms.of("XX").recognise("GmbH")).toBeNull();
  });

  test("Ltd and Limited are one word in names and in designations", () => {
    const gb = forms.of("GB");
    expect(gb.recognise("Ltd")).toEqual(gb.recognise("Limited") as Set<string>);
    expect(forms.of("CY").recognise("Public Company Ltd")).toEqual(
      forms.of("CY").recognise("Public Company Limited") as Set<string>,
    );
  });
});

describe("taking legal forms off a name", () => {
  const strip = (country: string, name: string) => forms.of(country).strip(nameWords(name));

  test("at the end (two for the bilingual SA/NV) and at the start", () => {
    expect(strip("NL", "GITHUB B.V.").words).toEqual(["github"]);
    expect(strip("FR", "SA DANONE").words).toEqual(["danone"]);
    expect(strip("BE", "Anheuser-Busch InBev SA/NV").words).toEqual(["anheuser", "busch", "inbev"]);
    expect(strip("PL", "ORLEN SPÓŁKA AKCYJNA").words).toEqual(["orlen"]);
    expect(strip("AT", "ORF-Enterprise GmbH & Co KG").words).toEqual(["orf", "enterprise"]);
    expect(strip("DE", "Robert Bosch Gesellschaft mit beschränkter Haftung")).toMatchObject({
      words: ["robert", "bosch"],
      forms: [expect.any(Set)],
    });
  });

  test("never the last word: a name that is a designation stays", () => {
    expect(strip("DE", "GmbH").words).toEqual(["gmbh"]);
    expect(strip("SE", "AB Volvo").words).toEqual(["volvo"]);
    expect(strip("NL", "Stichting").words).toEqual(["stichting"]);
  });

  test("a name without a legal form is left whole", () => {
    expect(strip("IT", "BANCA D'ITALIA")).toEqual({ words: ["banca", "d", "italia"], forms: [] });
  });
});
