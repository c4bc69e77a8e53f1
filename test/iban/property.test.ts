import { describe, expect, test } from "bun:test";
import examples from "../fixtures/iban-examples.json";
import { prng } from "../support/prng.ts";
import { engine, ibanOf, randomBban, registry } from "./support.ts";

const SEED = 20_260_723;
const PER_COUNTRY = 200;
const SAMPLES_PER_COUNTRY = 3;

const isDigit = (ch: string | undefined) => ch !== undefined && ch >= "0" && ch <= "9";

describe("generated IBANs (seeded, reproducible)", () => {
  test(`${PER_COUNTRY} random IBANs per country, built from its structure, all validate`, () => {
    const random = prng(SEED).next;
    const failures: string[] = [];
    for (const [country, format] of registry.formats) {
      for (let i = 0; i < PER_COUNTRY; i++) {
        const bban = randomBban(format, random);
        const result = engine.validate(ibanOf(country, bban));
        if (!result.valid || result.bban !== bban || result.country_code !== country)
          failures.push(ibanOf(country, bban));
      }
    }
    expect(failures).toEqual([]);
  });

  test("every single-digit substitution and every swap of two different adjacent digits is caught", () => {
    const random = prng(SEED + 1).next;
    const sample: string[] = Object.values(examples);
    for (const [country, format] of registry.formats) {
      for (let i = 0; i < SAMPLES_PER_COUNTRY; i++) sample.push(ibanOf(country, randomBban(format, random)));
    }
    const missed: string[] = [];
    let tried = 0;
    const expectCaught = (iban: string) => {
      tried++;
      const result = engine.validate(iban);
      if (result.valid || result.error?.code !== "invalid_checksum") missed.push(iban);
    };
    for (const iban of sample) {
      expect(engine.validate(iban).valid).toBe(true);
      for (let i = 2; i < iban.length; i++) {
        const ch = iban[i];
        if (!isDigit(ch)) continue;
        for (const digit of "0123456789") {
          if (digit !== ch) expectCaught(iban.slice(0, i) + digit + iban.slice(i + 1));
        }
        const next = iban[i + 1];
        if (isDigit(next) && next !== ch) expectCaught(`${iban.slice(0, i)}${next}${ch}${iban.slice(i + 2)}`);
      }
    }
    expect(missed).toEqual([]);
    expect(tried).toBeGreaterThan(90_000);
  });
});
