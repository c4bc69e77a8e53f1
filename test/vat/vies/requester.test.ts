import { describe, expect, test } from "bun:test";
import { parseRequesterVat } from "../../../src/vat/vies/requester.ts";

describe("parseRequesterVat", () => {
  test("splits prefix and number", () => {
    expect(parseRequesterVat("DE136695976")).toEqual({ countryCode: "DE", vatNumber: "136695976" });
    expect(parseRequesterVat("IE6388047V")).toEqual({ countryCode: "IE", vatNumber: "6388047V" });
  });

  test("ignores spaces, dots and dashes, upper-cases, and sends EL for GR", () => {
    expect(parseRequesterVat(" nl 8542.6525-9b01 ")).toEqual({
      countryCode: "NL",
      vatNumber: "854265259B01",
    });
    expect(parseRequesterVat("GR094259216")).toEqual({ countryCode: "EL", vatNumber: "094259216" });
  });

  test("refuses values VIES could never accept: malformed, failing check digits, unknown prefix, GB", () => {
    for (const bad of [
      "",
      "DE",
      "D1234",
      "DE1",
      "DE1234567890123",
      "12345678901",
      "DE12/34",
      "DE123456789",
      "XX12345678",
    ]) {
      expect(() => parseRequesterVat(bad)).toThrow(/requester VAT number is not valid/);
    }
    expect(() => parseRequesterVat("GB980780684")).toThrow(/VIES does not check GB/);
    expect(() => parseRequesterVat("CHE-116.281.710 MWST")).toThrow(/VIES does not check CH/);
    expect(() => parseRequesterVat("NO974760673MVA")).toThrow(/VIES does not check NO/);
  });
});
