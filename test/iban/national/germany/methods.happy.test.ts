import { describe, expect, test } from "bun:test";
import { checkGermanAccount, GERMAN_CHECK_METHODS } from "../../../../src/iban/national/germany/methods.ts";
import vectors from "../../../fixtures/german-check-methods.json";
import { prng } from "../../../support/prng.ts";
import { registry } from "../../support.ts";

interface Group {
  source: string;
  bank_code?: string;
  valid?: string[];
  invalid?: string[];
  no_check?: string[];
}

const methods = vectors.methods as Record<string, Group[]>;
const EXPECTED = { valid: "passed", invalid: "failed", no_check: "not_applicable" } as const;
const registryMethods = [...new Set([...registry.germany.banks.values()].map((bank) => bank.method))].sort();

describe("German check methods", () => {
  test("every method the bundled registry assigns is implemented (92 of them)", () => {
    expect(registryMethods).toHaveLength(92);
    expect(GERMAN_CHECK_METHODS).toEqual(registryMethods);
  });

  test("the fixture has valid and invalid examples for every method but 09 (which has no check)", () => {
    expect(Object.keys(methods).sort()).toEqual(registryMethods);
    for (const method of registryMethods) {
      const groups = methods[method] ?? [];
      const count = (kind: keyof typeof EXPECTED) => groups.flatMap((group) => group[kind] ?? []).length;
      if (method === "09") expect(count("no_check"), method).toBeGreaterThan(0);
      else expect([method, count("valid") > 0, count("invalid") > 0]).toEqual([method, true, true]);
    }
  });

  test.each(registryMethods)("method %s answers its published examples", (method) => {
    const answers: string[] = [];
    const expected: string[] = [];
    for (const group of methods[method] ?? []) {
      for (const kind of ["valid", "invalid", "no_check"] as const) {
        for (const account of group[kind] ?? []) {
          const bankCode = group.bank_code ?? "00000000";
          answers.push(
            `${group.source} ${account}: ${checkGermanAccount(method, account.padStart(10, "0"), bankCode)}`,
          );
          expected.push(`${group.source} ${account}: ${EXPECTED[kind]}`);
        }
      }
    }
    expect(answers).toEqual(expected);
  });
});

/**
 * Methods whose definition catches every single-digit error: each checked position adds a bijective
 * function of its digit to the sum modulo 10 (weights 1, 3, 7, 9; digit sums of 2 × digit; last digit of
 * 3 × digit), and the check digit is a bijective function of that sum. [first, last] checked position,
 * and the check digit's position.
 */
const SINGLE_DIGIT_SAFE: Record<string, [first: number, last: number, check: number]> = {
  "00": [1, 10, 10],
  "01": [1, 10, 10],
  "05": [1, 10, 10],
  "18": [1, 10, 10],
  "22": [1, 10, 10],
  "60": [3, 10, 10],
  "67": [1, 8, 8],
  "92": [4, 10, 10],
  "94": [1, 10, 10],
  D7: [1, 10, 10],
  E0: [1, 10, 10],
};
const BASES = 150;

describe("single-digit errors (seeded, reproducible)", () => {
  test.each(
    Object.entries(SINGLE_DIGIT_SAFE),
  )("method %s: one check digit per number, every substitution caught", (method, [first, last, check]) => {
    const random = prng(20_250_123 + method.charCodeAt(0) * 256 + method.charCodeAt(1));
    const missed: string[] = [];
    for (let i = 0; i < BASES; i++) {
      const digits = Array.from({ length: 10 }, () => String(random.int(10)));
      digits[0] = String(1 + random.int(9));
      const passing = "0123456789".split("").filter((d) => {
        digits[check - 1] = d;
        return checkGermanAccount(method, digits.join(""), "00000000") === "passed";
      });
      expect(passing).toHaveLength(1);
      digits[check - 1] = passing[0] as string;
      const valid = digits.join("");
      for (let position = first; position <= last; position++) {
        for (let d = 0; d < 10; d++) {
          if (String(d) === valid[position - 1]) continue;
          const typo = valid.slice(0, position - 1) + d + valid.slice(position);
          if (checkGermanAccount(method, typo, "00000000") !== "failed") missed.push(`${valid} → ${typo}`);
        }
      }
    }
    expect(missed).toEqual([]);
  });
});
