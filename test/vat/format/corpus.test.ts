import { describe, expect, test } from "bun:test";
import { checkVatFormat } from "../../../src/vat/format/check-vat-format.ts";
import corpus from "../../fixtures/vat-numbers.json";

// test/fixtures/vat-numbers.json is a byte-for-byte copy of the shared test-vector corpus; every
// entry keeps its `source` (and `also_in`), and `heads` records the commit of each source suite.

type Invalid = (typeof corpus.invalid_format)[number] & { lenient_form?: boolean };
type Edge = (typeof corpus.edge_cases)[number];

/** Trim, upper-case and drop spaces, dots and dashes: the corpus' own normalisation. */
const compact = (input: string) => input.replace(/[\s.-]/g, "").toUpperCase();

function acceptedInputs(entries: readonly { input: string }[]): string[] {
  return entries.filter((entry) => checkVatFormat(entry.input).ok).map((entry) => entry.input);
}

describe("valid_format", () => {
  test("every one of the 2798 entries is accepted", () => {
    expect(corpus.valid_format).toHaveLength(2798);
    const rejected = corpus.valid_format.filter((entry) => !checkVatFormat(entry.input).ok);
    expect(rejected.map((entry) => entry.input)).toEqual([]);
  });

  test("every entry resolves to its VIES prefix and ISO country (GR input → EL/GR, XI → XI/GB)", () => {
    for (const entry of corpus.valid_format) {
      const result = checkVatFormat(entry.input);
      if (!result.ok) throw new Error(`rejected ${entry.input}`);
      const iso = { EL: "GR", XI: "GB" }[entry.country] ?? entry.country;
      expect([entry.input, result.prefix, result.countryCode]).toEqual([entry.input, entry.country, iso]);
    }
  });
});

describe("invalid_format", () => {
  const invalid = corpus.invalid_format as Invalid[];
  const byReason = (reason: string) => invalid.filter((entry) => entry.reason === reason);

  test("all 309 structure failures are rejected", () => {
    expect(byReason("pattern")).toHaveLength(309);
    expect(acceptedInputs(byReason("pattern"))).toEqual([]);
  });

  test("unknown or missing prefixes are invalid_country, known ones invalid_format", () => {
    for (const entry of byReason("pattern")) {
      const result = checkVatFormat(entry.input);
      expect([entry.input, result.ok ? "accepted" : result.code]).toEqual([
        entry.input,
        entry.country === null ? "invalid_country" : "invalid_format",
      ]);
    }
  });

  test("all 554 check-digit and strict-rule failures outside the lenient forms are rejected", () => {
    const strict = byReason("checksum").filter((entry) => entry.lenient_form !== true);
    expect(strict).toHaveLength(554);
    expect(acceptedInputs(strict)).toEqual([]);
  });

  test("GB all-zero numbers are rejected although python-stdnum accepts them", () => {
    const allZero = invalid.filter((entry) => entry.detail === "GB all zero");
    expect(allZero.map((entry) => entry.input)).toEqual(["GB000000000", "GB000000000000"]);
    expect(acceptedInputs(allZero)).toEqual([]);
  });

  describe("lenient forms (61 entries)", () => {
    const lenient = invalid.filter((entry) => entry.lenient_form === true);
    /** Forms whose check digit is deliberately not verified: BG 10 digits, CZ 9/10 digits, FR keys with a letter. */
    const uncheckedForm = (entry: Invalid) => {
      const number = compact(entry.input).slice(2);
      if (entry.country === "BG") return /^\d{10}$/.test(number);
      if (entry.country === "CZ") return /^\d{9,10}$/.test(number);
      return (
        entry.country === "FR" && /^[0-9A-HJ-NP-Z]{2}\d{9}$/.test(number) && /[A-Z]/.test(number.slice(0, 2))
      );
    };

    test("the 58 in forms left to VIES are accepted", () => {
      expect(lenient).toHaveLength(61);
      const unchecked = lenient.filter(uncheckedForm);
      expect(unchecked).toHaveLength(58);
      const accepted = unchecked.filter((entry) => checkVatFormat(entry.input).ok);
      expect(accepted).toHaveLength(58);
    });

    test("the 3 that also break the structure (I or O in an FR key) are rejected", () => {
      const broken = lenient.filter((entry) => !uncheckedForm(entry));
      expect(broken.map((entry) => entry.input)).toEqual(["FRIO334175221", "FRIO399859412", "FRKO399859412"]);
      expect(acceptedInputs(broken)).toEqual([]);
    });
  });
});

describe("edge_cases, by decided category", () => {
  const edges = corpus.edge_cases as Edge[];
  const numberOf = (entry: Edge) => compact(entry.input).slice(2);

  type Category = { name: string; matches: (entry: Edge) => boolean; count: number; accepted: boolean };
  // Order matters: an entry belongs to the first category it matches.
  const categories: Category[] = [
    {
      name: "unusual separators / , : ( ) are stripped",
      matches: (entry) => entry.note.startsWith("unusual separator"),
      count: 8,
      accepted: true,
    },
    {
      name: "RO 13-digit personal code (CNP) is outside the VIES 2–10 digit structure",
      matches: (entry) => entry.country === "RO" && /^\d{13}$/.test(numberOf(entry)),
      count: 2,
      accepted: false,
    },
    {
      name: "RO leading zeros are rejected, not stripped",
      matches: (entry) => entry.country === "RO" && numberOf(entry).startsWith("0"),
      count: 2,
      accepted: false,
    },
    {
      name: "BE legacy 9-digit numbers are zero-padded",
      matches: (entry) => entry.country === "BE" && /^\d{9}$/.test(numberOf(entry)),
      count: 128,
      accepted: true,
    },
    {
      name: "EL 8-digit numbers are zero-padded",
      matches: (entry) => entry.country === "EL" && /^\d{8}$/.test(numberOf(entry)),
      count: 1,
      accepted: true,
    },
    {
      name: "NL numbers with a short left part are zero-padded",
      matches: (entry) => entry.country === "NL" && /^\d{1,8}B\d\d$/.test(numberOf(entry)),
      count: 3,
      accepted: true,
    },
    {
      name: "GB 11-character EU form GD8888nnnCC / HA8888nnnCC",
      matches: (entry) => entry.country === "GB" && /^(GD|HA)8888\d{5}$/.test(numberOf(entry)),
      count: 2,
      accepted: true,
    },
    {
      name: "rejected by one suite through a disputed rule (EE 10 prefix, IT office code, LV personal codes)",
      matches: (entry) => entry.expected === "invalid",
      count: 9,
      accepted: true,
    },
    {
      name: "suites disagree (BE starting with 1, GB ranges, ES K/L/M and CIF letters, FR letter keys, CZ)",
      matches: (entry) => entry.expected === "disputed",
      count: 39,
      accepted: true,
    },
  ];
  const categoryOf = (entry: Edge) => categories.find((category) => category.matches(entry));

  test("every edge case falls in a decided category", () => {
    expect(edges).toHaveLength(194);
    expect(edges.filter((entry) => categoryOf(entry) === undefined).map((entry) => entry.input)).toEqual([]);
  });

  for (const category of categories) {
    test(`${category.accepted ? "accepted" : "rejected"}: ${category.name}`, () => {
      const members = edges.filter((entry) => categoryOf(entry) === category);
      expect(members).toHaveLength(category.count);
      for (const entry of members) {
        const result = checkVatFormat(entry.input);
        expect([entry.input, result.ok]).toEqual([entry.input, category.accepted]);
        if (!result.ok) expect(result.code).toBe("invalid_format");
      }
    });
  }

  test("padding puts the leading zeros back in the normalized number", () => {
    const padded = (input: string) => {
      const result = checkVatFormat(input);
      return result.ok ? result.vatNumber : result.message;
    };
    expect(padded("BE 428759497")).toBe("BE0428759497");
    expect(padded("EL 94051189")).toBe("EL094051189");
    expect(padded("NL4495445B01")).toBe("NL004495445B01");
    expect(padded("BE (0)468.561.072")).toBe("BE0468561072");
  });
});
