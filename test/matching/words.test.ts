import { describe, expect, test } from "bun:test";
import { fold, nameWords, words } from "../../src/matching/words.ts";

describe("folding", () => {
  test("case, accents and compatibility forms go; ß and the undecomposable letters are spelled out", () => {
    expect(fold("Ébène Straße ŁÓDŹ Ærø Ｆｕｌｌ ﬁne")).toBe("ebene strasse lodz aero full fine");
  });

  test("Greek and Bulgarian Cyrillic are transliterated", () => {
    expect(words("ΑΝΩΝΥΜΗ ΕΤΑΙΡΕΙΑ ΤΗΛΕΠΙΚΟΙΝΩΝΙΩΝ")).toEqual(["anonymi", "etaireia", "tilepikoinonion"]);
    expect(words("ПРОФИ КРЕДИТ  БЪЛГАРИЯ - ЕООД")).toEqual(["profi", "kredit", "balgariya", "eood"]);
  });
});

describe("words", () => {
  test("punctuation and spacing separate words", () => {
    expect(words("GITHUB B.V.,  Vijzelstraat-68 (Amsterdam)")).toEqual([
      "github",
      "bv",
      "vijzelstraat",
      "68",
      "amsterdam",
    ]);
  });

  test("letters joined by dots are one word, however the abbreviation is written", () => {
    expect(words("S.à r.l.")).toEqual(["sa", "rl"]);
    expect(words("G.m.b.H.")).toEqual(["gmbh"]);
    expect(words("Ges.m.b.H.")).toEqual(["ges", "mbh"]);
    expect(words("sp. z o.o.")).toEqual(["sp", "z", "oo"]);
    expect(words("JOHN F. KENNEDY")).toEqual(["john", "f", "kennedy"]);
    expect(words("Dr.Müller 1.5")).toEqual(["dr", "muller", "1", "5"]);
  });

  test("nothing to compare in punctuation alone", () => {
    expect(words(" -- , . ")).toEqual([]);
  });

  test("names spell out the abbreviations they share with legal forms", () => {
    expect(nameWords("Acme Ltd. & Co. Intl Corp")).toEqual([
      "acme",
      "limited",
      "company",
      "international",
      "corporation",
    ]);
  });
});
