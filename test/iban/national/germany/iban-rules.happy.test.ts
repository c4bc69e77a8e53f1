import { describe, expect, test } from "bun:test";
import { GERMAN_IBAN_RULES, germanBban } from "../../../../src/iban/national/germany/iban-rules.ts";
import { checkGermanAccount } from "../../../../src/iban/national/germany/methods.ts";
import vectors from "../../../fixtures/german-iban-rules.json";
import { prng } from "../../../support/prng.ts";
import { registry } from "../../support.ts";

interface Case {
  rule: string;
  bank_code: string;
  account_number: string;
  bban?: string;
  refused?: string | boolean;
}

const germany = registry.germany;
const banks = [...germany.banks].map(([code, bank]) => ({ code: String(code), ...bank }));

describe("German IBAN rules", () => {
  test("every IBAN rule the bundled banks use is implemented", () => {
    const used = new Set(banks.map((bank) => (bank.ibanRule ?? "000000").slice(0, 4)));
    expect([...used].filter((rule) => !GERMAN_IBAN_RULES.includes(rule))).toEqual([]);
    expect(GERMAN_IBAN_RULES.filter((rule) => !used.has(rule))).toEqual([]);
  });

  test.each(Object.entries(vectors.cases as Record<string, Case[]>))("%s", (_, cases) => {
    const answers = cases.map((c) => {
      const result = germanBban(c.bank_code, c.account_number, germany);
      const answer = result.ok ? result.bankCode + result.account : result.reason;
      return `${c.rule} ${c.bank_code} ${c.account_number}: ${c.refused === true && !result.ok ? true : answer}`;
    });
    expect(answers).toEqual(
      cases.map((c) => `${c.rule} ${c.bank_code} ${c.account_number}: ${c.bban ?? c.refused}`),
    );
  });

  test("the standard rule pads a passing account to 10 digits and keeps the bank code (seeded)", () => {
    const random = prng(20_250_601);
    const standard = banks.filter((bank) => bank.ibanRule === "000000" && bank.method !== "09");
    for (let i = 0; i < 300; i++) {
      const bank = random.pick(standard);
      const length = 6 + random.int(4);
      let account = String(1 + random.int(9));
      while (account.length < length - 1) account += String(random.int(10));
      const passing = "0123456789"
        .split("")
        .map((d) => account + d)
        .find(
          (candidate) => checkGermanAccount(bank.method, candidate.padStart(10, "0"), bank.code) === "passed",
        );
      if (!passing) continue;
      expect(germanBban(bank.code, passing, germany)).toEqual({
        ok: true,
        bankCode: bank.code,
        account: passing.padStart(10, "0"),
      });
    }
  });

  test("rules 0032-0035 (HypoVereinsbank) take the bank code from the account's first three digits", () => {
    const hypo = banks.find((bank) => bank.ibanRule === "003200");
    if (!hypo) throw new Error("no bank with rule 0032");
    const target = germany.banks.get(76020070);
    if (!target) throw new Error("76020070 is not in the registry");
    const account = "0123456789"
      .split("")
      .map((d) => `100123456${d}`)
      .find((candidate) => checkGermanAccount(target.method, candidate, "76020070") === "passed");
    expect(account).toBeDefined();
    expect(germanBban(hypo.code, account as string, germany)).toEqual({
      ok: true,
      bankCode: "76020070",
      account: account as string,
    });
    expect(germanBban(hypo.code, "812345678", germany)).toEqual({
      ok: false,
      reason: `account 812345678 of bank ${hypo.code} does not take part in payments via IBAN`,
    });
  });

  test("leading zeros in the account number change nothing", () => {
    expect(germanBban("37040044", "0532013000", germany)).toEqual(
      germanBban("37040044", "532013000", germany),
    );
    expect(germanBban("26580070", "0007325022", germany)).toEqual({
      ok: true,
      bankCode: "26580070",
      account: "0732502200",
    });
  });
});
