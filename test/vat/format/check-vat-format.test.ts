import { describe, expect, test } from "bun:test";
import { checkVatFormat, type VatFormatResult } from "../../../src/vat/format/check-vat-format.ts";
import { prng } from "../../support/prng.ts";

function accepted(input: string) {
  const result = checkVatFormat(input);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(input)} to be accepted: ${result.message}`);
  return result;
}

function rejected(input: string) {
  const result = checkVatFormat(input);
  if (result.ok) throw new Error(`expected ${JSON.stringify(input)} to be rejected, got ${result.vatNumber}`);
  return result;
}

describe("prefix aliases", () => {
  test("GR is Greece's ISO code: asked as EL, reported as GR", () => {
    expect(accepted("GR094259216")).toEqual({
      ok: true,
      prefix: "EL",
      countryCode: "GR",
      countryName: "Greece",
      number: "094259216",
      vatNumber: "EL094259216",
    });
    expect(accepted("gr 094 259 216")).toEqual(accepted("EL094259216"));
  });

  test("GR and EL share Greece's rules", () => {
    expect(rejected("GR094259217")).toMatchObject({
      code: "invalid_format",
      prefix: "EL",
      countryCode: "GR",
    });
    expect(accepted("GR94259216").vatNumber).toBe("EL094259216");
  });

  test("XI is Northern Ireland: asked as XI, reported as GB, checked with UK rules", () => {
    expect(accepted("XI980780684")).toEqual({
      ok: true,
      prefix: "XI",
      countryCode: "GB",
      countryName: "United Kingdom (Northern Ireland)",
      number: "980780684",
      vatNumber: "XI980780684",
    });
    expect(accepted("XIHA500").vatNumber).toBe("XIHA500");
    expect(rejected("XI802311781")).toMatchObject({
      code: "invalid_format",
      prefix: "XI",
      countryCode: "GB",
    });
  });

  test("GB keeps its own prefix for the UK service", () => {
    expect(accepted("GB 980 7806 84")).toEqual({
      ok: true,
      prefix: "GB",
      countryCode: "GB",
      countryName: "United Kingdom",
      number: "980780684",
      vatNumber: "GB980780684",
    });
  });
});

describe("normalization", () => {
  test.each([
    ["de136695976"],
    ["De 136-695.976"],
    ["  DE136695976\n"],
    ["\tDE 136 695 976 "],
    ["DE\u00a0136\u00a0695\u00a0976"],
    ["DE\u2009136\u202f695\u3000976"],
    ["DE\u2013136\u2011695\u2212976"],
    ["DE\u200b136695976\ufeff"],
    ["DE: 136/695,976"],
    ["(DE) 136.695.976"],
  ])("%p is DE136695976", (input) => {
    expect(accepted(input).vatNumber).toBe("DE136695976");
  });

  test("the IE old form keeps its + and *, which its check letter does not cover", () => {
    expect(accepted("IE 8+79739 I").vatNumber).toBe("IE8+79739I");
    expect(accepted("ie 8*79739i").vatNumber).toBe("IE8*79739I");
    expect(rejected("IE8+79739J").message).toContain("check digit");
  });

  test("Unicode case mapping cannot forge ASCII letters", () => {
    // U+0131 (dotless i) upper-cases to I and would otherwise complete the valid IE8D79739I.
    expect(rejected("IE8D79739\u0131")).toMatchObject({ code: "invalid_format", prefix: "IE" });
    expect(rejected("\u0131E6433435F").code).toBe("invalid_country");
  });

  test("look-alike letters and full-width digits are not read as ASCII", () => {
    expect(rejected("\u0410\u0422U13585627").code).toBe("invalid_country"); // Cyrillic А and Т
    expect(rejected("DE\uff11\uff13\uff16695976")).toMatchObject({ code: "invalid_format", prefix: "DE" });
    expect(rejected("NL004495445\u041201").code).toBe("invalid_format"); // Cyrillic В
  });

  test("null bytes and control characters are rejected, never stripped", () => {
    expect(rejected("DE136695976\u0000").code).toBe("invalid_format");
    expect(rejected("DE136\u0000695976").code).toBe("invalid_format");
    expect(rejected("\u0000DE136695976").code).toBe("invalid_country");
  });
});

describe("prefix errors are invalid_country", () => {
  test.each([
    ["", "empty"],
    ["   ", "empty"],
    ["123456789", "2-letter country prefix"],
    ["D", "2-letter country prefix"],
    ["1DE136695976", "2-letter country prefix"],
  ])("%p", (input, fragment) => {
    const result = rejected(input);
    expect(result).toMatchObject({
      code: "invalid_country",
      prefix: null,
      countryCode: null,
      countryName: null,
    });
    expect(result.message).toContain(fragment);
    expect(result.message).toContain("AT, BE, BG");
  });

  test.each([
    ["XX123"],
    ["UK980780684"],
    ["US123456789"],
    ["EU372000041"],
    ["invalid_prefix_BE0123456789"],
  ])("unknown prefix %p", (input) => {
    const result = rejected(input);
    expect(result.code).toBe("invalid_country");
    expect(result.message).toStartWith(`unknown VAT prefix '${input.slice(0, 2).toUpperCase()}'`);
    expect(result.message).toContain("SK, XI, GB, CH, NO (GR is accepted for Greece)");
  });
});

describe("format errors are invalid_format with the country", () => {
  test("a bare prefix explains the structure", () => {
    expect(rejected("DE")).toEqual({
      ok: false,
      code: "invalid_format",
      message: "DE VAT numbers are 9 digits, the first not 0",
      prefix: "DE",
      countryCode: "DE",
      countryName: "Germany",
    });
    expect(rejected("AT").message).toBe("AT VAT numbers are 'U' followed by 8 digits");
    expect(rejected("NL").message).toBe("NL VAT numbers are 9 digits, the letter B and 2 digits (not B00)");
  });

  test("the message names the prefix as sent", () => {
    expect(rejected("GR12345678901").message).toBe("GR VAT numbers are 9 digits");
  });

  test("a wrong check digit says so", () => {
    expect(rejected("DE136695978").message).toBe("the check digit of this DE VAT number does not match");
  });

  test.each([
    ["NL NL004495445B01"],
    ["NLNL004495445B01"],
    ["GR EL094259216"],
    ["EL-GR-094259216"],
    ["ATATU13585627"],
  ])("duplicated prefix %p", (input) => {
    const result = rejected(input);
    expect(result.code).toBe("invalid_format");
    expect(result.message).toContain("the country prefix appears twice");
  });

  test("an FR key that happens to spell FR is a key, not a repeated prefix", () => {
    expect(checkVatFormat("FRFR123456789").ok).toBe(true);
  });

  test("40 characters of garbage after a known prefix", () => {
    expect(rejected(`DE${"#x9!".repeat(9)}ab`).code).toBe("invalid_format");
    expect(rejected("DE".padEnd(40, "7")).code).toBe("invalid_format");
  });
});

describe("robustness", () => {
  const alphabet = [
    ..."ABDEGIKLMNORSTUXZabdegiklx0123456789 .-/:,()+*_#\t\n",
    "\u0000",
    "\u00a0",
    "\u0131",
    "\u017f",
    "\u00df",
    "\u0410",
    "\uff11",
    "\u200b",
    "\ud83d\ude00",
    "\ud800",
  ];

  function wellFormed(result: VatFormatResult): boolean {
    if (result.ok)
      return /^[A-Z]{2}[0-9A-Z+*]+$/.test(result.vatNumber) && result.vatNumber.endsWith(result.number);
    return ["invalid_format", "invalid_country"].includes(result.code) && result.message.length > 0;
  }

  test("20 000 random inputs up to 40 characters never throw and always answer well-formed", () => {
    const { next } = prng(20240601);
    const prefixes = ["DE", "NL", "IE", "ES", "FR", "GB", "XI", "GR", "BE", ""];
    for (let i = 0; i < 20_000; i++) {
      let input = prefixes[Math.floor(next() * prefixes.length)] ?? "";
      const length = Math.floor(next() * 39);
      for (let j = 0; j < length; j++) input += alphabet[Math.floor(next() * alphabet.length)];
      const result = checkVatFormat(input);
      if (!wellFormed(result)) throw new Error(`ill-formed answer for ${JSON.stringify(input)}`);
    }
  });

  test("very long input is rejected without trouble", () => {
    expect(rejected(`DE${"1".repeat(100_000)}`).code).toBe("invalid_format");
  });
});
