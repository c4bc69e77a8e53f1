import { describe, expect, test } from "bun:test";
import type { Span } from "../../src/iban/registry.ts";
import examples from "../fixtures/iban-examples.json";
import vectors from "../fixtures/ibans.json";
import { prng } from "../support/prng.ts";
import { committedBanks, engine, ibanOf, randomBban, registry } from "./support.ts";

const banks = committedBanks();
const bankCountries = [...new Set(banks.map((bank) => bank.country))];

function formatOf(country: string) {
  const format = registry.formats.get(country);
  if (!format) throw new Error(`no format for ${country}`);
  return format;
}

describe("bank lookup", () => {
  test("every bank code of all 43 countries is found from an IBAN carrying it in its bank field", () => {
    const random = prng(43).next;
    const missed: string[] = [];
    for (const bank of banks) {
      const format = formatOf(bank.country);
      const [start] = format.bank as Span;
      const result = engine.validate(
        ibanOf(bank.country, randomBban(format, random, { at: start, text: bank.code })),
      );
      expect(result.valid).toBe(true);
      if (
        result.bank_code !== bank.code ||
        result.bank?.bic !== bank.bic ||
        result.bank?.name !== bank.name
      ) {
        missed.push(`${bank.country} ${bank.code}`);
      }
    }
    expect(missed).toEqual([]);
    expect(bankCountries).toHaveLength(43);
  });

  test("most real IBANs of those countries (test vectors and examples) resolve a bank", () => {
    const inputs = [...vectors.valid.map((vector) => vector.input), ...Object.values(examples)];
    let total = 0;
    let found = 0;
    for (const input of inputs) {
      const result = engine.validate(input);
      if (!result.country_code || !bankCountries.includes(result.country_code)) continue;
      total++;
      if (result.bank) found++;
    }
    expect(total).toBeGreaterThan(1_000);
    expect(found / total).toBeGreaterThan(0.85);
  });

  test("DE is keyed by the 8-digit Bankleitzahl", () => {
    expect(engine.validate("DE89 3704 0044 0532 0130 00").bank).toEqual({
      name: "Commerzbank",
      bic: "COBADEFFXXX",
    });
  });

  test("PL is keyed by the 8-digit settlement number (bank and branch)", () => {
    const result = engine.validate("PL61 1090 1014 0000 0712 1981 2874");
    expect(result.bank_code).toBe("10901014");
    expect(result.bank).toEqual({ name: "Erste Bank Polska Spółka Akcyjna", bic: "WBKPPLPPXXX" });
  });

  test("SI is keyed by bank and branch together (5 digits): same bank digits, different branch, other BIC", () => {
    const random = prng(386).next;
    const si = formatOf("SI");
    const withCode = (code: string) =>
      engine.validate(ibanOf("SI", randomBban(si, random, { at: 0, text: code })));
    expect(withCode("01000").bank).toEqual({ name: "BANKA SLOVENIJE", bic: "BSLJSI2XXXX" });
    expect(withCode("01050").bank).toEqual({ name: "BANKA SLOVENIJE", bic: "BSLJSI2XFNB" });
    expect(engine.validate("SI56 0430 2000 0284 291").bank).toEqual({
      name: "NOVA KBM D.D.",
      bic: "KBMASI2XXXX",
    });
  });

  test("GB is keyed by the 4-letter bank code", () => {
    expect(engine.validate("GB29 NWBK 6016 1331 9268 19").bank?.bic).toBe("NWBKGB2LXXX");
  });

  test("a country without bank data, and an uncovered code in a covered country, give no bank", () => {
    expect(engine.validate("AL47 2121 1009 0000 0002 3569 8741")).toMatchObject({ valid: true, bank: null });
    expect(engine.validate("UA21 3223 1300 0002 6007 2335 6600 1")).toMatchObject({
      valid: true,
      bank: null,
    });
    expect(engine.validate("BE68 5390 0754 7034")).toMatchObject({
      valid: true,
      bank_code: "539",
      bank: null,
    });
  });
});
