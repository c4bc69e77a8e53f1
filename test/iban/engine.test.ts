import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import type { Span } from "../../src/iban/registry.ts";
import { IbanResultSchema } from "../../src/iban/schema.ts";
import examples from "../fixtures/iban-examples.json";
import { prng } from "../support/prng.ts";
import { checkDigits, engine, ibanOf, randomBban, registry } from "./support.ts";

const exampleEntries = Object.entries(examples as Record<string, string>);

function formatOf(country: string) {
  const format = registry.formats.get(country);
  if (!format) throw new Error(`no format for ${country}`);
  return format;
}

describe("country examples", () => {
  test("there is one example for each of the 127 codes", () => {
    expect(exampleEntries.map(([country]) => country).sort()).toEqual([...registry.formats.keys()].sort());
  });

  test.each(exampleEntries)("%s example validates and parses by its registry positions", (country, iban) => {
    const result = engine.validate(iban);
    const format = formatOf(country);
    const bban = iban.slice(4);
    const part = (span: Span | null) => (span ? bban.slice(span[0], span[1]) : null);
    expect(Value.Check(IbanResultSchema, result)).toBe(true);
    expect(result).toMatchObject({
      input: iban,
      valid: true,
      iban,
      country_code: country,
      check_digits: iban.slice(2, 4),
      bban,
      bank_code: part(format.bank),
      branch_code: part(format.branch),
      account_number: part(format.account),
      sepa: format.sepa,
      source: "offline",
      cached: false,
      error: null,
    });
    expect(result.iban_formatted?.split(" ").every((group) => group.length > 0 && group.length <= 4)).toBe(
      true,
    );
    expect(result.iban_formatted?.replaceAll(" ", "")).toBe(iban);
    expect(
      result.iban_formatted
        ?.split(" ")
        .slice(0, -1)
        .every((group) => group.length === 4),
    ).toBe(true);
  });

  const handChecked: [string, string, string | null, string | null, string | null][] = [
    ["DE89 3704 0044 0532 0130 00", "37040044", null, "0532013000", "COBADEFFXXX"],
    ["GB29 NWBK 6016 1331 9268 19", "NWBK", "601613", "31926819", "NWBKGB2LXXX"],
    ["FR14 2004 1010 0505 0001 3M02 606", "20041", "01005", "0500013M026", "PSSTFRPP"],
    ["IT60 X054 2811 1010 0000 0123 456", "05428", "11101", "000000123456", "BLOPIT22"],
    ["SI56 2633 0001 2039 086", "26330", null, "00120390", null],
    ["PL61 1090 1014 0000 0712 1981 2874", "10901014", null, "0000071219812874", "WBKPPLPPXXX"],
    ["NL91 ABNA 0417 1643 00", "ABNA", null, "0417164300", "ABNANL2A"],
    ["BE68 5390 0754 7034", "539", null, "0075470", null],
    ["CH93 0076 2011 6238 5295 7", "00762", null, "011623852957", null],
    ["NO93 8601 1117 947", "8601", null, "111794", "DABANO22"],
  ];
  test.each(handChecked)("%s parses into hand-checked parts", (input, bank, branch, account, bic) => {
    const result = engine.validate(input);
    expect(result.valid).toBe(true);
    expect([result.bank_code, result.branch_code, result.account_number, result.bank?.bic ?? null]).toEqual([
      bank,
      branch,
      account,
      bic,
    ]);
    expect(result.iban_formatted).toBe(input);
  });
});

describe("rejections, in the order country → length → structure → checksum", () => {
  test.each(exampleEntries)("%s: one character short or long is invalid_length", (country, iban) => {
    const length = formatOf(country).ibanLength;
    for (const wrong of [iban.slice(0, -1), `${iban}0`]) {
      expect(engine.validate(wrong)).toMatchObject({
        valid: false,
        country_code: country,
        iban: null,
        error: {
          code: "invalid_length",
          message: `IBAN for ${country} must be ${length} characters, got ${wrong.length}`,
        },
      });
    }
  });

  test.each(
    exampleEntries,
  )("%s: a character of the wrong class at any position is invalid_format", (country, iban) => {
    const classes = `aann${formatOf(country).bbanClasses}`;
    for (let i = 2; i < iban.length; i++) {
      if (classes[i] === "c") continue;
      const wrong = classes[i] === "n" ? "X" : "7";
      const result = engine.validate(iban.slice(0, i) + wrong + iban.slice(i + 1));
      const expected = classes[i] === "n" ? "a digit" : "an upper-case letter";
      expect(result).toMatchObject({ valid: false, country_code: country, bban: null, bank: null });
      expect(result.error?.code).toBe("invalid_format");
      expect(result.error?.message).toStartWith(`character '${wrong}' at position ${i + 1}`);
      expect(result.error?.message).toEndWith(`must be ${expected}`);
    }
  });

  test.each([
    ["", "IBAN is empty"],
    [" \t ", "IBAN is empty"],
    ["IBAN", "IBAN is empty"],
    ["D", "IBAN must start with a two-letter country code"],
    ["0001", "IBAN must start with a two-letter country code"],
    ["1E89370400440532013000", "IBAN must start with a two-letter country code"],
    ["XX89 3704 0044 0532 0130 00", "XX is not a country or territory that uses IBANs"],
    ["QQ93 1234 5678", "QQ is not a country or territory that uses IBANs"],
    ["us64 SVBK US6S 3300 9673 86", "US is not a country or territory that uses IBANs"],
  ])("%j is invalid_country", (input, message) => {
    expect(engine.validate(input)).toMatchObject({
      input,
      valid: false,
      country_code: null,
      error: { code: "invalid_country", message },
    });
  });

  test("a rejected IBAN of a known country keeps what the country tells: its code and SEPA flag", () => {
    const sepaOf = (country: string) => formatOf(country).sepa;
    expect(engine.validate("DE89 3704 0044 0532 0130")).toMatchObject({
      country_code: "DE",
      sepa: sepaOf("DE"),
      error: { code: "invalid_length" },
    });
    expect(engine.validate("BR15 0000 0000 0000 1093 2840 8X14 A")).toMatchObject({
      country_code: "BR",
      sepa: sepaOf("BR"),
      error: { code: "invalid_format" },
    });
  });

  test.each([
    ["DE89/3704/0044/0532/0130/00", "DE", "character '/' at position 5 is not allowed in an IBAN"],
    ["IBAN: GB29 NWBK 6016 1331 9268 1#", "GB", "character '#' at position 33 is not allowed in an IBAN"],
    ["/DE89370400440532013000", null, "character '/' at position 1 is not allowed in an IBAN"],
  ])("%j: a character not allowed in any IBAN is invalid_format, after the country", (input, country, message) => {
    expect(engine.validate(input)).toMatchObject({
      valid: false,
      country_code: country,
      sepa: country === null ? null : formatOf(country).sepa,
      iban: null,
      error: { code: "invalid_format", message },
    });
  });

  test("an unknown country is reported before a character that is not allowed", () => {
    expect(engine.validate("XX89/3704/0044")).toMatchObject({
      country_code: null,
      error: { code: "invalid_country", message: "XX is not a country or territory that uses IBANs" },
    });
  });

  test("a checksum failure keeps the parsed parts but names no bank", () => {
    expect(engine.validate("DE89 3704 0044 0532 0130 01")).toMatchObject({
      valid: false,
      iban: "DE89370400440532013001",
      iban_formatted: "DE89 3704 0044 0532 0130 01",
      country_code: "DE",
      check_digits: "89",
      bank_code: "37040044",
      account_number: "0532013001",
      sepa: true,
      bank: null,
      error: { code: "invalid_checksum" },
    });
  });

  test("check digits 00, 01 and 99 are invalid_checksum even where a bare mod-97 test passes", () => {
    const random = prng(9798).next;
    const de = formatOf("DE");
    const found = new Map<string, string>();
    while (found.size < 3) {
      const bban = randomBban(de, random);
      const digits = checkDigits("DE", bban);
      // 97 ≡ 00, 98 ≡ 01 and 02 ≡ 99 (mod 97): swapping them keeps the mod-97 remainder at 1.
      const alias = { "97": "00", "98": "01", "02": "99" }[digits];
      if (alias) found.set(alias, `DE${alias}${bban}`);
    }
    for (const [alias, iban] of found) {
      expect(engine.validate(iban)).toMatchObject({
        valid: false,
        check_digits: alias,
        error: {
          code: "invalid_checksum",
          message: `check digits ${alias} are never issued (ISO 13616 check digits run from 02 to 98)`,
        },
      });
    }
  });

  test("non-numeric check digits are invalid_format, before the checksum", () => {
    expect(engine.validate("GB2L ABBY 0901 2857 2017 07").error).toEqual({
      code: "invalid_format",
      message: "character 'L' at position 4 (check digits) must be a digit",
    });
  });
});

describe("input normalization", () => {
  const iban = "DE89370400440532013000";
  test.each([
    "DE89 3704 0044 0532 0130 00",
    "de89 3704 0044 0532 0130 00",
    "DE89-3704-0044-0532-0130-00",
    "DE89.3704.0044.0532.0130.00",
    " DE89370400440532013000\n",
    "DE89\t3704\t0044\t0532\t0130\t00",
    "DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000",
    "DE89\u202f3704\u20070044\u20090532\u30000130 00",
    "DE89 – 3704 — 0044 ‐ 0532 − 0130 00",
    "IBAN DE89 3704 0044 0532 0130 00",
    "IBAN: DE89 3704 0044 0532 0130 00",
    "iban:de89370400440532013000",
    "IBANDE89370400440532013000",
  ])("%j is read as the electronic IBAN", (input) => {
    expect(engine.validate(input)).toMatchObject({ input, valid: true, iban, error: null });
  });

  test.each([
    ["DE89/3704/0044/0532/0130/00", "character '/' at position 5 is not allowed in an IBAN"],
    ["DE: 89 3704 0044 0532 0130 00", "character ':' at position 3 is not allowed in an IBAN"],
    ["IBAN:: DE89 3704 0044 0532 0130 00", "character ':' at position 6 is not allowed in an IBAN"],
    ["DE89 3704 0044 0532 0130 00 IBAN:", "character ':' at position 33 is not allowed in an IBAN"],
    ["DE89 3704 0044 0532 0130 00;", "character ';' at position 28 is not allowed in an IBAN"],
    ["DE89 (3704) 0044 0532 0130 00", "character '(' at position 6 is not allowed in an IBAN"],
  ])("%j: other punctuation is invalid_format", (input, message) => {
    expect(engine.validate(input)).toMatchObject({
      valid: false,
      error: { code: "invalid_format", message },
    });
  });

  test("the input is echoed as sent and the IBAN is returned in electronic and print format", () => {
    const result = engine.validate("  iban de89 3704-0044.0532 0130 00 ");
    expect(result.input).toBe("  iban de89 3704-0044.0532 0130 00 ");
    expect(result.iban).toBe(iban);
    expect(result.iban_formatted).toBe("DE89 3704 0044 0532 0130 00");
  });

  test("generated IBANs in print format and lower case validate the same as electronic ones", () => {
    const random = prng(4).next;
    for (const [country, format] of registry.formats) {
      const electronic = ibanOf(country, randomBban(format, random));
      const printed = electronic
        .replace(/(.{4})/g, "$1 ")
        .trim()
        .toLowerCase();
      expect(engine.validate(printed)).toMatchObject({ valid: true, iban: electronic });
    }
  });
});
