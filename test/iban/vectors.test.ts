import { describe, expect, test } from "bun:test";
import type { ErrorCode } from "../../src/kernel/errors.ts";
import vectors from "../fixtures/ibans.json";
import { engine } from "./support.ts";

const CODE_FOR_REASON: Record<string, ErrorCode> = {
  country: "invalid_country",
  length: "invalid_length",
  structure: "invalid_format",
  checksum: "invalid_checksum",
};

describe("real-world test vectors (test/fixtures/ibans.json)", () => {
  test("all 1345 valid vectors validate, with the labelled country", () => {
    expect(vectors.valid).toHaveLength(1345);
    const failures = vectors.valid.filter((vector) => {
      const result = engine.validate(vector.input);
      return !result.valid || result.country_code !== vector.country;
    });
    expect(failures).toEqual([]);
  });

  test("all 125 invalid vectors are rejected with the code of their labelled reason", () => {
    expect(vectors.invalid).toHaveLength(125);
    const mismatches = vectors.invalid
      .map((vector) => ({ vector, result: engine.validate(vector.input) }))
      .filter(({ vector, result }) => result.valid || result.error?.code !== CODE_FOR_REASON[vector.reason]);
    expect(mismatches).toEqual([]);
  });
});

describe("edge cases: decided outcomes", () => {
  const byExpectation = (expected: string) =>
    vectors.edge_cases.filter((vector) => vector.expected === expected);

  /** Separators the spec does not name; rejected rather than guessed around. */
  const otherSeparators = new Set([
    "BA; 393384304822703378",
    "FR 76 / 1213 / 5003 / 0008 / 0013 / 0194 / 760",
    "PT: 50 0018 0003 24403537020 84",
    "PT: 50003300004520006048605",
  ]);

  test("valid IBANs in lower case, with spaces, dots, dashes (also typographic) or an IBAN label are valid", () => {
    const accepted = byExpectation("valid").filter((vector) => !otherSeparators.has(vector.input));
    expect(accepted).toHaveLength(66);
    for (const vector of accepted) expect(engine.validate(vector.input).valid, vector.input).toBe(true);
  });

  test("valid IBANs written with ';', '/' or ':' after the country code are invalid_format", () => {
    expect(byExpectation("valid").filter((vector) => otherSeparators.has(vector.input))).toHaveLength(4);
    for (const input of otherSeparators) {
      const result = engine.validate(input);
      expect(result.valid).toBe(false);
      expect(result.error?.code).toBe("invalid_format");
      expect(result.error?.message).toMatch(/^character '[;/:]' at position \d+ is not allowed in an IBAN$/);
    }
  });

  test("ES IBANs failing only Spain's national check digits are valid, with the national check failed", () => {
    const national = byExpectation("invalid-national");
    expect(national).toHaveLength(3);
    for (const vector of national) {
      const result = engine.validate(vector.input);
      expect([vector.input, result.valid, result.national_check]).toEqual([vector.input, true, "failed"]);
    }
  });

  test("mutated examples of non-SWIFT codes are rejected by structure or checksum, not by country", () => {
    const mutated = byExpectation("invalid");
    expect(mutated).toHaveLength(24);
    for (const vector of mutated) {
      const result = engine.validate(vector.input);
      expect(result.valid, vector.input).toBe(false);
      expect(["invalid_length", "invalid_format", "invalid_checksum"]).toContain(
        result.error?.code as string,
      );
    }
  });

  test("layouts from older registry versions (BI with 16, NI with 32 characters) are invalid_length", () => {
    expect(byExpectation("disputed").map((vector) => engine.validate(vector.input).error)).toEqual([
      { code: "invalid_length", message: "IBAN for NI must be 28 characters, got 32" },
      { code: "invalid_length", message: "IBAN for BI must be 27 characters, got 16" },
    ]);
  });
});

describe("countries outside the SWIFT registry", () => {
  test("every code is supported; 124 of the 130 examples are accepted", () => {
    const results = vectors.non_registry_countries.map((vector) => engine.validate(vector.input));
    expect(results.filter((result) => result.error?.code === "invalid_country")).toEqual([]);
    expect(results.filter((result) => result.valid)).toHaveLength(124);
  });
});
