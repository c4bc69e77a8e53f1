import { describe, expect, test } from "bun:test";
import structures from "../../registry/data/iban-structures.json";
import version from "../../registry/data/version.json";
import type { CountryFormat, Span } from "../../src/iban/registry.ts";
import { committedBanks, engine } from "./support.ts";

/** The spec's "Bank/BIC registry" table, copied as written there. */
// biome-ignore format: a table reads best as a table
const SPEC_BANK_CODES: Record<string, number> = {
  // official national directory
  AT: 864, BA: 25, BE: 771, CH: 1065, CZ: 34, DE: 3503, EE: 16, ES: 384, FI: 643, GE: 20, HR: 21,
  HU: 179, IT: 453, KZ: 49, LI: 19, LT: 287, LV: 25, MD: 18, NL: 86, NO: 2297, PL: 2999, RO: 47,
  RS: 26, SE: 36, SI: 829, SK: 37,
  // curated list (major banks only)
  AD: 6, AE: 56, BG: 24, CR: 24, CY: 7, DK: 6479, FR: 215, GB: 39, GR: 22, IE: 28, IL: 1, IS: 4,
  LU: 118, MC: 1, ME: 12, PT: 77, TR: 48,
};

const formats = structures as unknown as Record<string, CountryFormat>;
const codesFrom = (source: CountryFormat["source"]) =>
  Object.keys(formats).filter((code) => formats[code]?.source === source);

describe("committed IBAN structures", () => {
  test("cover 127 codes: 89 SWIFT countries, 16 territories, 22 national-only adopters", () => {
    expect(Object.keys(formats)).toHaveLength(127);
    expect(codesFrom("swift")).toHaveLength(89);
    expect(codesFrom("swift-territory").sort()).toEqual(
      ["AX", "BL", "GF", "GG", "GP", "IM", "JE", "MF", "MQ", "NC", "PF", "PM", "RE", "TF", "WF", "YT"].sort(),
    );
    expect(codesFrom("schwifty").join(" ")).toBe(
      "AO BF BJ CF CG CI CM CV DZ GA GQ GW IR KM MA MG ML MZ NE SN TD TG",
    );
    expect(version.counts).toMatchObject({ countries: 127, swift: 89, territories: 16, nationalOnly: 22 });
  });

  test("territories use their parent's format", () => {
    const parents = {
      FI: ["AX"],
      GB: ["GG", "IM", "JE"],
      FR: ["BL", "GF", "GP", "MF", "MQ", "NC", "PF", "PM", "RE", "TF", "WF", "YT"],
    };
    for (const [parent, territories] of Object.entries(parents)) {
      for (const territory of territories) {
        const { sepa: _s, source: _o, parent: recorded, ...format } = formats[territory] as CountryFormat;
        const { sepa: _p, source: _q, parent: _r, ...parentFormat } = formats[parent] as CountryFormat;
        expect(recorded).toBe(parent);
        expect(format).toEqual(parentFormat);
      }
    }
  });

  test("every format is consistent: lengths, classes, and non-overlapping parts inside the BBAN", () => {
    for (const [code, format] of Object.entries(formats)) {
      const bbanLength = format.bbanClasses.length;
      expect(format.ibanLength, code).toBe(bbanLength + 4);
      expect(format.bbanClasses, code).toMatch(/^[nac]+$/);
      const parts = [format.bank, format.branch, format.account].filter(
        (span): span is Span => span !== null,
      );
      for (const [start, end] of [...parts, ...(format.nationalCheck ? [format.nationalCheck] : [])]) {
        expect(start >= 0 && start < end && end <= bbanLength, code).toBe(true);
      }
      for (const a of parts) {
        for (const b of parts) expect(a === b || a[1] <= b[0] || b[1] <= a[0], code).toBe(true);
      }
    }
  });

  test("SEPA: the 37 SWIFT SEPA countries plus AX, the 8 French territories SWIFT lists, GG, IM and JE", () => {
    const sepa = Object.keys(formats).filter((code) => formats[code]?.sepa);
    expect(sepa).toEqual(
      [
        ...["AD", "AT", "BE", "BG", "CH", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GB", "GI", "GR"],
        ...["HR", "HU", "IE", "IS", "IT", "LI", "LT", "LU", "LV", "MC", "MT", "NL", "NO", "PL", "PT", "RO"],
        ...["SE", "SI", "SK", "SM", "VA"],
        ...["AX", "GF", "GP", "MQ", "YT", "RE", "PM", "BL", "MF", "GG", "IM", "JE"],
      ].sort(),
    );
  });

  test("where SWIFT and schwifty disagree, the recorded decisions hold", () => {
    const spans = (code: string) => {
      const { bank, branch, account } = formats[code] as CountryFormat;
      return { bank, branch, account };
    };
    expect(spans("SI")).toEqual({ bank: [0, 5], branch: null, account: [5, 13] });
    expect(spans("FR")).toEqual({ bank: [0, 5], branch: [5, 10], account: [10, 21] });
    expect(spans("YT")).toEqual(spans("FR"));
    expect(spans("AL")).toEqual({ bank: [0, 3], branch: [3, 8], account: [8, 24] });
    expect(spans("CZ")).toEqual({ bank: [0, 4], branch: null, account: [4, 20] });
    expect(spans("SK")).toEqual({ bank: [0, 4], branch: null, account: [4, 20] });
    expect(spans("EE")).toEqual({ bank: [0, 2], branch: null, account: [2, 15] });
    expect(spans("PL")).toEqual({ bank: [0, 8], branch: null, account: [8, 24] });
    expect(spans("HN")).toEqual({ bank: [0, 4], branch: null, account: [4, 24] });
    expect(["NC", "PF", "TF", "WF"].map((code) => formats[code]?.sepa)).toEqual([false, false, false, false]);
  });
});

describe("committed bank registry", () => {
  const banks = committedBanks();

  test("has exactly the spec's 43 countries, each with the spec's number of bank codes", () => {
    const counts: Record<string, number> = {};
    for (const bank of banks) counts[bank.country] = (counts[bank.country] ?? 0) + 1;
    expect(counts).toEqual(SPEC_BANK_CODES);
    expect(version.bankCodesPerCountry as Record<string, number>).toEqual(SPEC_BANK_CODES);
    expect(version.counts.bankCodes).toBe(21_894);
    expect(banks).toHaveLength(21_894);
  });

  test("rows are sorted by country then code, unique, with a BIC and a one-line name", () => {
    for (let i = 1; i < banks.length; i++) {
      const [a, b] = [banks[i - 1], banks[i]];
      expect(`${a?.country} ${a?.code}` < `${b?.country} ${b?.code}`).toBe(true);
    }
    for (const bank of banks) {
      expect(bank.bic).toMatch(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/);
      expect(bank.name).toMatch(/^\S(.*\S)?$/);
      expect(bank.name).not.toMatch(/\s{2}|[\t\r\n]/);
    }
  });

  test("every bank code has the length and character classes of its country's IBAN bank field", () => {
    const pattern: Record<string, RegExp> = {};
    for (const bank of banks) {
      const format = formats[bank.country] as CountryFormat;
      const [start, end] = format.bank as Span;
      pattern[bank.country] ??= new RegExp(
        `^${[...format.bbanClasses.slice(start, end)].map((kind) => ({ n: "[0-9]", a: "[A-Z]", c: "[0-9A-Z]" })[kind]).join("")}$`,
      );
      expect(bank.code).toMatch(pattern[bank.country] as RegExp);
    }
  });

  test("the version string names the SWIFT release, the schwifty commit and the bank data date", () => {
    expect(version.version).toBe("swift-r100+schwifty-23462330 (bank data 2026-07-23)");
    expect(engine.registryVersion).toBe(version.version);
    expect(version.sources.schwifty.commit.startsWith("23462330")).toBe(true);
    expect(version.sources.swift.release).toBe(100);
  });
});
