import { describe, expect, test } from "bun:test";
import { parseGermanBanksTsv } from "../../../../src/iban/national/germany/bank-data.ts";
import { germanBban } from "../../../../src/iban/national/germany/iban-rules.ts";
import { registry } from "../../support.ts";

const germany = registry.germany;

describe("German BBANs from input the rules refuse", () => {
  test.each([
    ["a short bank code", "3704004", "532013000", 'bank code must be 8 digits, got "3704004"'],
    ["a bank code with a space", "3704 0044", "532013000", 'bank code must be 8 digits, got "3704 0044"'],
    ["an empty account", "37040044", "", 'account number must be 1 to 10 digits, got ""'],
    [
      "an 11-digit account",
      "37040044",
      "05320130000",
      'account number must be 1 to 10 digits, got "05320130000"',
    ],
    [
      "a dash in the account",
      "37040044",
      "532-013000",
      'account number must be 1 to 10 digits, got "532-013000"',
    ],
    [
      "full-width digits",
      "37040044",
      "５３２０１３０００",
      'account number must be 1 to 10 digits, got "５３２０１３０００"',
    ],
    [
      "a bank code not in the registry",
      "12345678",
      "532013000",
      "bank code 12345678 is not in the registry of German banks",
    ],
    ["an all-zero account", "37040044", "0000", "account number 0000 is not an account"],
  ])("%s", (_, bankCode, account, reason) => {
    expect(germanBban(bankCode, account, germany)).toEqual({ ok: false, reason });
  });

  test("a bank that builds no IBANs (rule 0001) is refused whatever the account", () => {
    for (const account of ["1", "930125007", "9999999999"]) {
      expect(germanBban("50040033", account, germany)).toEqual({
        ok: false,
        reason: "bank 50040033 does not take part in payments via IBAN",
      });
    }
  });

  test("an account replaced under a rule is named as converted when it fails", () => {
    expect(germanBban("10070000", "123456", germany)).toEqual({
      ok: false,
      reason:
        "account 123456 fails the check of method 63 used by bank 10070000 (as 0012345600, after IBAN rule 002002)",
    });
  });

  test("a rule this service does not implement is refused, not guessed; a bank without a rule takes the standard", () => {
    const data = parseGermanBanksTsv(
      "bank_code\tcheck_method\tiban_rule\n10000001\t09\t005600\n10000002\t09\t\n",
    );
    expect(germanBban("10000001", "123", data)).toEqual({
      ok: false,
      reason: "bank 10000001 uses IBAN rule 005600, which is not supported",
    });
    expect(germanBban("10000002", "123", data)).toEqual({
      ok: true,
      bankCode: "10000002",
      account: "0000000123",
    });
  });
});

describe("de-banks.tsv parsing", () => {
  test.each([
    ["a wrong header", "bank_code\tmethod\n"],
    ["a missing field", "bank_code\tcheck_method\tiban_rule\n10000001\t09\n"],
    ["a 7-digit bank code", "bank_code\tcheck_method\tiban_rule\n1000001\t09\t000000\n"],
    ["a method code out of range", "bank_code\tcheck_method\tiban_rule\n10000001\tF0\t000000\n"],
    ["a 5-digit rule", "bank_code\tcheck_method\tiban_rule\n10000001\t09\t00000\n"],
    ["codes out of order", "bank_code\tcheck_method\tiban_rule\n10000002\t09\t\n10000001\t09\t\n"],
    ["a duplicate code", "bank_code\tcheck_method\tiban_rule\n10000001\t09\t\n10000001\t09\t\n"],
  ])("rejects %s", (_, tsv) => {
    expect(() => parseGermanBanksTsv(tsv)).toThrow();
  });
});
