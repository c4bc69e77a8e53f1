import { describe, expect, test } from "bun:test";
import { citySimilarity, samePostcode, streetSimilarity } from "../../src/matching/address-similarity.ts";
import { LegalForms, readLegalFormData } from "../../src/matching/legal-forms.ts";
import { LEGAL_FORM_CONFLICT, nameSimilarity } from "../../src/matching/name-similarity.ts";
import {
  coverage,
  editDistance,
  spellOutInitials,
  WORD_LIKENESS,
  wordLikeness,
} from "../../src/matching/similarity.ts";

const forms = new LegalForms(readLegalFormData());
const name = (country: string, given: string, registered: string) =>
  nameSimilarity(given, registered, forms.of(country));

describe("words alike", () => {
  test("edit distance", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
  });

  test("a spelling of one another from four letters on; numbers by value; initials", () => {
    expect(wordLikeness("luxemburg", "luxembourg")).toBeCloseTo(0.9);
    expect(wordLikeness("bank", "bahn")).toBe(0);
    expect(wordLikeness("eni", "enel")).toBe(0);
    expect(wordLikeness("00068", "68")).toBe(1);
    expect(wordLikeness("68", "86")).toBe(0);
    expect(wordLikeness("7a", "7")).toBe(0);
    expect(wordLikeness("a", "auguste")).toBe(WORD_LIKENESS);
  });

  test("coverage weighs words; a text of no weight is covered", () => {
    const a = [
      { word: "google", weight: 1 },
      { word: "ireland", weight: 0.3 },
    ];
    expect(coverage(a, [{ word: "google", weight: 1 }])).toBeCloseTo(1 / 1.3);
    expect(coverage([{ word: "de", weight: 0 }], [])).toBe(1);
  });

  test("initials spelled out from the words they begin", () => {
    const other = ["powszechna", "kasa", "oszczednosci", "bank", "polski"];
    expect(spellOutInitials(["pko", "bank"], other, () => false)).toEqual([
      "powszechna",
      "kasa",
      "oszczednosci",
      "bank",
    ]);
    expect(spellOutInitials(["xyz"], other, () => false)).toEqual(["xyz"]);
  });
});

describe("names", () => {
  test("the same company written differently", () => {
    expect(name("NL", "GitHub BV", "GITHUB B.V.")).toBe(1);
    expect(name("NL", "Git Hub", "GITHUB B.V.")).toBe(1);
    expect(name("FR", "Danone S.A.", "SA DANONE")).toBe(1);
    expect(name("PL", "Orlen Spolka Akcyjna", "ORLEN SPÓŁKA AKCYJNA")).toBe(1);
    expect(name("BG", "Profi Credit Bulgaria EOOD", "ПРОФИ КРЕДИТ  БЪЛГАРИЯ - ЕООД")).toBeGreaterThanOrEqual(
      0.8,
    );
    expect(name("DE", "BMW AG", "Bayerische Motoren Werke Aktiengesellschaft")).toBe(1);
    expect(
      name("PL", "PKO Bank Polski S.A.", "POWSZECHNA KASA OSZCZĘDNOŚCI BANK POLSKI SPÓŁKA AKCYJNA"),
    ).toBe(1);
  });

  test("a register's name cut short mid-word is alike to the name it begins", () => {
    const registered = "MINISTERE DE L'ECONOMIE, DES FINANCE";
    expect(name("FR", "Ministère de l'Économie, des Finances et de la Souveraineté", registered)).toBe(1);
    // Cut at a word's end, it is compared like any name: the rest counts.
    expect(name("IT", "Agenzia delle Entrate-Riscossione", "AGENZIA DELLE ENTRATE")).toBeLessThan(0.8);
  });

  test("other companies of a group, and other places of a group, are not alike", () => {
    expect(name("IE", "Google Cloud EMEA Limited", "GOOGLE IRELAND LIMITED")).toBeLessThan(0.8);
    expect(name("IE", "Google Germany GmbH", "GOOGLE IRELAND LIMITED")).toBeLessThan(0.8);
    expect(name("LU", "Amazon Services Europe S.à r.l.", "AMAZON EU SARL")).toBeLessThan(0.8);
    expect(name("DE", "Deutsche Bahn AG", "Deutsche Bank Aktiengesellschaft")).toBeLessThan(0.8);
  });

  test("a place alone weighs little", () => {
    expect(name("IE", "Google Ireland", "GOOGLE IRELAND LIMITED")).toBe(1);
    expect(name("IE", "Google", "GOOGLE IRELAND LIMITED")).toBeCloseTo(1 / 1.3);
  });

  test("a different legal form lowers the similarity", () => {
    expect(name("NL", "GitHub N.V.", "GITHUB B.V.")).toBe(LEGAL_FORM_CONFLICT);
    expect(name("NL", "GitHub", "GITHUB B.V.")).toBe(1);
  });
});

describe("addresses", () => {
  test("streets: the given street found in the registered one, types and numbers as written", () => {
    expect(streetSimilarity("Vijzelstr. 68", "VIJZELSTRAAT 00068")).toBe(1);
    expect(streetSimilarity("ul. Chemików 7", "CHEMIKÓW 7")).toBeGreaterThanOrEqual(0.8);
    expect(streetSimilarity("Barrow Street", "3RD FLOOR, GORDON HOUSE, BARROW STREET")).toBe(1);
    expect(streetSimilarity("38, Avenue J.F. Kennedy", "38, AVENUE JOHN F. KENNEDY")).toBe(1);
    expect(streetSimilarity("Vijzelstraat 86", "VIJZELSTRAAT 00068")).toBe(0.5);
    expect(streetSimilarity("Barrow Road", "3RD FLOOR, GORDON HOUSE, BARROW STREET")).toBe(0.5);
  });

  test("cities: districts, provinces and routing set aside", () => {
    expect(citySimilarity("Dublin", "DUBLIN 4", "IE")).toBe(1);
    expect(citySimilarity("ROMA RM", "ROMA", "IT")).toBe(1);
    expect(citySimilarity("Paris Cedex 09", "PARIS", "FR")).toBe(1);
    expect(citySimilarity("Plock", "PŁOCK", "PL")).toBe(1);
    expect(citySimilarity("Płońsk", "PŁOCK", "PL")).toBe(0);
  });

  test("postcodes: the same code or not", () => {
    expect(samePostcode("1017 hl", "1017HL", "NL")).toBe(true);
    expect(samePostcode("184", "00184", "IT")).toBe(true);
    expect(samePostcode("L-1855", "1855", "LU")).toBe(true);
    expect(samePostcode("1017 HM", "1017HL", "NL")).toBe(false);
  });
});
