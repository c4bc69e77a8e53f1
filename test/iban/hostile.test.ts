import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { IbanResultSchema } from "../../src/iban/schema.ts";
import { prng } from "../support/prng.ts";
import { engine } from "./support.ts";

const VALID = "DE89370400440532013000";

function rejectedWith(input: string, code: string) {
  const result = engine.validate(input);
  expect(Value.Check(IbanResultSchema, result)).toBe(true);
  expect(result.valid).toBe(false);
  expect(result.input).toBe(input);
  expect(result.error?.code).toBe(code as never);
  return result;
}

describe("hostile input", () => {
  test("very long inputs are rejected by length without trouble", () => {
    const long = `DE89${"0".repeat(1_000_000)}`;
    expect(rejectedWith(long, "invalid_length").error?.message).toBe(
      "IBAN for DE must be 22 characters, got 1000004",
    );
    rejectedWith(" ".repeat(100_000), "invalid_country");
    rejectedWith(`IBAN${VALID.repeat(3)}`, "invalid_length");
  });

  test("full-width digits and letters are named as not allowed, not folded to ASCII", () => {
    expect(rejectedWith("DE８９370400440532013000", "invalid_format").error?.message).toBe(
      "character '８' (U+FF18) at position 3 is not allowed in an IBAN",
    );
    rejectedWith("ＤＥ89370400440532013000", "invalid_format");
  });

  test("Cyrillic and Greek look-alikes of Latin letters are not allowed", () => {
    expect(rejectedWith("DE89 3704 0044 0532 0130 0О", "invalid_format").error?.message).toBe(
      "character 'О' (U+041E) at position 27 is not allowed in an IBAN",
    );
    rejectedWith("NL91 АBNA 0417 1643 00", "invalid_format");
    rejectedWith("ΝL91ABNA0417164300", "invalid_format");
  });

  test("control characters and null bytes are named by code point", () => {
    expect(rejectedWith(`${VALID}\u0000`, "invalid_format").error?.message).toBe(
      "character U+0000 at position 23 is not allowed in an IBAN",
    );
    rejectedWith(`DE89\u001b[31m370400440532013000`, "invalid_format");
  });

  test("invisible characters that ride along with copy and paste are ignored", () => {
    for (const invisible of ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]) {
      expect(engine.validate(`DE89${invisible}370400440532013000${invisible}`).valid).toBe(true);
      expect(engine.validate(`${invisible}${VALID}`).iban).toBe("DE89370400440532013000");
    }
  });

  test("emoji and lone surrogates are rejected", () => {
    expect(rejectedWith(`DE89 💶 3704`, "invalid_format").error?.message).toBe(
      "character '💶' (U+1F4B6) at position 6 is not allowed in an IBAN",
    );
    expect(rejectedWith(`DE\ud83d89`, "invalid_format").error?.message).toBe(
      "character U+D83D at position 3 is not allowed in an IBAN",
    );
  });

  test("markup and injection attempts are just invalid characters", () => {
    rejectedWith(`<script>alert(1)</script>`, "invalid_format");
    rejectedWith(`DE89'; DROP TABLE banks; --`, "invalid_format");
    rejectedWith(`{"iban":"${VALID}"}`, "invalid_format");
  });

  test("random strings over a mixed alphabet never throw and always yield a schema-valid result", () => {
    const random = prng(666).next;
    const alphabet = [..."AZaz09 .-:/\t\u00a0\u2013ÄßЖ８💶\u0000\ud800", "IBAN", "DE89", "GB29", "SI56"];
    for (let i = 0; i < 20_000; i++) {
      let input = "";
      const length = Math.floor(random() * 40);
      for (let j = 0; j < length; j++) input += alphabet[Math.floor(random() * alphabet.length)];
      const result = engine.validate(input);
      expect(Value.Check(IbanResultSchema, result)).toBe(true);
      expect(result.input).toBe(input);
      expect(result.valid === true || result.error !== null).toBe(true);
    }
  });
});
