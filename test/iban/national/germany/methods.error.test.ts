import { describe, expect, test } from "bun:test";
import { checkGermanAccount, GERMAN_CHECK_METHODS } from "../../../../src/iban/national/germany/methods.ts";
import { prng } from "../../../support/prng.ts";

const RESULTS = ["passed", "failed", "not_applicable"];

describe("German check methods on input that is not a 10-digit account number", () => {
  test.each([
    ["too short", "539290858"],
    ["too long", "05392908580"],
    ["empty", ""],
    ["a space", "0539290 58"],
    ["a letter", "053929085A"],
    ["full-width digits", "０５３９２９０８５８"],
    ["a sign", "-539290858"],
    ["all zeros (no bank issues it)", "0000000000"],
  ])("%s fails under every method, even 09 (which has no check digit)", (_, account) => {
    const answers = GERMAN_CHECK_METHODS.map((method) => checkGermanAccount(method, account, "37040044"));
    expect(new Set(answers)).toEqual(new Set(["failed"]));
  });

  test.each(["", "0", "XX", "F0", "45", "0A", "00 "])("unknown method code %p: not_applicable", (method) => {
    expect(checkGermanAccount(method, "0539290858", "37040044")).toBe("not_applicable");
  });

  test("methods that read the bank code fail with one that is not a bank code", () => {
    expect(checkGermanAccount("C0", "0043001500", "13051172")).toBe("passed");
    expect(checkGermanAccount("C0", "0043001500", "")).toBe("failed");
    expect(checkGermanAccount("B6", "0487310018", "80053782")).toBe("passed");
    expect(checkGermanAccount("B6", "0487310018", "8005")).toBe("failed");
  });

  test("random strings over a mixed alphabet never throw and always give one of the three answers", () => {
    const random = prng(20_260_101);
    const alphabet = "0123456789 -/AZaz\u00e4\u0000\uffff";
    for (let i = 0; i < 20_000; i++) {
      const length = random.int(13);
      let account = "";
      for (let j = 0; j < length; j++) account += alphabet[random.int(alphabet.length)];
      const method = random.pick(GERMAN_CHECK_METHODS);
      const bankCode = random.next() < 0.5 ? "13051172" : account.slice(0, 8);
      expect(RESULTS).toContain(checkGermanAccount(method, account, bankCode));
    }
  });
});
