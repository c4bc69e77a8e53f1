import { describe, expect, test } from "bun:test";
import fixture from "../../fixtures/iban-national-checks.json";
import vectors from "../../fixtures/ibans.json";
import { engine, ibanOf } from "../support.ts";

/**
 * The BBAN positions [from, to) in which the national check catches every single-digit change, by what
 * the algorithm guarantees: a weighted sum modulo 10 or 11 whose weights are all prime to the modulus,
 * MOD 97-10 and the RIB key (10^k is never a multiple of 97), Luhn, MOD 11,10 and the CIN (its tables are
 * one-to-one). Spain's control digits fold remainders 10 and 11 onto 1 and 0, so a change in the bank,
 * branch or account can go unnoticed: only the control digits themselves are guaranteed. Germany's
 * methods have their own property test (germany/methods.happy.test.ts).
 */
const GUARANTEED: Record<string, [from: number, to: number]> = {
  AL: [0, 8],
  BA: [0, 16],
  BE: [0, 12],
  CZ: [4, 20],
  SK: [4, 20],
  EE: [2, 16],
  ES: [8, 10],
  FI: [0, 14],
  AX: [0, 14],
  HR: [0, 17],
  HU: [0, 24],
  IS: [12, 21],
  IT: [0, 23],
  SM: [0, 23],
  ME: [0, 18],
  MK: [0, 15],
  MR: [0, 23],
  NO: [0, 11],
  PL: [0, 8],
  PT: [0, 21],
  RS: [0, 18],
  SI: [0, 15],
  TL: [0, 19],
  TN: [0, 20],
};
for (const rib of ["FR", "MC", "GF", "GP", "MQ", "RE", "PF", "NC", "PM", "TF", "WF", "YT", "BL", "MF"]) {
  GUARANTEED[rib] = [0, 23];
}
for (const rib of ["CF", "CG", "GA", "GQ", "TD", "KM", "DJ"]) GUARANTEED[rib] = [0, 23];

/** BBANs the rules exempt (they are never failed), so a change into or out of them proves nothing. */
const EXEMPT: Record<string, (bban: string) => boolean> = {
  FI: (bban) => bban.startsWith("798"),
  AX: (bban) => bban.startsWith("798"),
  NO: (bban) => bban.slice(4, 6) === "00",
  RS: (bban) => bban.startsWith("908"),
  SI: (bban) => bban.startsWith("01"),
};

const DIGITS = "0123456789";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

describe("a single changed character in the national check's part turns passed into failed", () => {
  const passing = [
    ...vectors.valid.map((vector) => vector.input),
    ...Object.values(fixture.countries).flatMap((group) => group.valid.map((entry) => entry.iban)),
  ]
    .map((input) => engine.validate(input))
    .filter((result) => result.national_check === "passed" && GUARANTEED[result.country_code as string]);

  test("over every passing vector of the covered countries but DE, every position, every other character", () => {
    const missed: string[] = [];
    let tried = 0;
    for (const result of passing) {
      const country = result.country_code as string;
      const bban = result.bban as string;
      const exempt = EXEMPT[country] ?? (() => false);
      if (exempt(bban)) continue;
      const [from, to] = GUARANTEED[country] as [number, number];
      for (let i = from; i < to; i++) {
        // Letters in a RIB account are not one-to-one (A and J both count 1): digits only, and the CIN.
        const alphabet = DIGITS.includes(bban[i] as string)
          ? DIGITS
          : country === "IT" || country === "SM"
            ? LETTERS
            : "";
        for (const replacement of alphabet) {
          if (replacement === bban[i]) continue;
          const changed = bban.slice(0, i) + replacement + bban.slice(i + 1);
          if (exempt(changed)) continue;
          tried++;
          const answer = engine.validate(ibanOf(country, changed));
          if (!answer.valid || answer.national_check !== "failed")
            missed.push(`${result.iban} → ${answer.iban}`);
        }
      }
    }
    expect(missed).toEqual([]);
    expect(new Set(passing.map((result) => result.country_code)).size).toBe(Object.keys(GUARANTEED).length);
    expect(tried).toBeGreaterThan(100_000);
  });
});
