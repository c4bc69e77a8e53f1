import { describe, expect, test } from "bun:test";
import { BUILD_COUNTRIES } from "../../../src/iban/build/build.ts";
import { prng } from "../../support/prng.ts";
import { ibanOf } from "../support.ts";
import { builder, built } from "./support.ts";

describe("refusals say exactly what is wrong", () => {
  test("a country whose rules are not public is invalid_country, naming those supported", () => {
    for (const country_code of ["SE", "CH", "US", "XX", "de1"]) {
      const outcome = builder.build({ country_code, account_number: "1234" });
      expect(outcome).toMatchObject({ ok: false, code: "invalid_country" });
      expect(!outcome.ok && outcome.message).toContain(`IBANs are built for ${BUILD_COUNTRIES.join(", ")}`);
    }
  });

  test.each([
    ["no country", { account_number: "532013000" }, "invalid_request: send `country_code`"],
    [
      "no account",
      { country_code: "DE", bank_code: "37040044" },
      "invalid_request: send `account_number`: the DE account number",
    ],
    [
      "DE without its bank code",
      { country_code: "DE", account_number: "532013000" },
      "invalid_request: send `bank_code` with the account number, or the whole 18-character number as `account_number`",
    ],
    [
      "ES account without bank and branch",
      { country_code: "ES", account_number: "45 0200051332" },
      "invalid_request: send `bank_code` and `branch_code` with the account number, or the whole 20-character number as `account_number`",
    ],
    [
      "GB without the bank",
      { country_code: "GB", branch_code: "601613", account_number: "31926819" },
      "invalid_request: send `bank_code`: the bank's 4-letter code or its BIC (GB bank codes come from the BIC; the registry has no sort codes to find them by)",
    ],
  ])("%s: invalid_request", (_, request, answer) => {
    expect(built(request)).toBe(answer);
  });

  test.each([
    [
      "an ES CCC whose control digits fail",
      { country_code: "ES", account_number: "2100 0418 42 0200051332" },
      "invalid_format: the account number fails its national check: the control digits (DC) do not match the bank, branch and account number",
    ],
    [
      "a RIB whose key fails",
      { country_code: "FR", account_number: "20041 01005 0500013M026 07" },
      "invalid_format: the account number fails its national check: the RIB key does not match the bank, branch and account number",
    ],
    [
      "a German account failing its bank's method",
      { country_code: "DE", bank_code: "37040044", account_number: "532013100" },
      "invalid_format: account 532013100 fails the check of method 13 used by bank 37040044",
    ],
    [
      "a German bank the registry does not have",
      { country_code: "DE", bank_code: "12345678", account_number: "532013000" },
      "invalid_format: bank code 12345678 is not in the registry of German banks",
    ],
    [
      "a German bank that takes no part in payments by IBAN (rule 0001)",
      { country_code: "DE", bank_code: "50040033", account_number: "1234567" },
      "invalid_format: bank 50040033 does not take part in payments via IBAN",
    ],
    [
      "a bank code of the wrong length",
      { country_code: "AT", bank_code: "1904", account_number: "234573201" },
      'invalid_format: `bank_code` of AT has 5 characters, got "1904"',
    ],
    [
      "an account too long",
      { country_code: "AT", bank_code: "19043", account_number: "123456789012" },
      "invalid_format: `account_number` of AT has up to 11 characters after `bank_code`, or 16 in all, got 12",
    ],
    [
      "a letter where a digit belongs",
      { country_code: "DE", bank_code: "37040044", account_number: "53201300O" },
      'invalid_format: `account_number` has "O" where a digit belongs',
    ],
    [
      "a bank code that is not the account's",
      { country_code: "CZ", bank_code: "0100", account_number: "19-2000145399/0800" },
      'invalid_format: `bank_code` "0100" is not the bank after the slash (0800)',
    ],
    [
      "a branch code where the country has none",
      { country_code: "NO", branch_code: "11", account_number: "8601 11 17947" },
      "invalid_format: NO account numbers have no branch code",
    ],
    [
      "a BIC of another country",
      { country_code: "GB", bank_code: "AIBKIE2D", branch_code: "931152", account_number: "12345678" },
      'invalid_format: `bank_code` "AIBKIE2D" is the BIC of a bank in IE, not GB',
    ],
    [
      "an NRB whose check digits fail",
      { country_code: "PL", account_number: "62 1090 1014 0000 0712 1981 2874" },
      "invalid_format: the NRB's first two digits (its check digits) do not match the rest of it",
    ],
    [
      "a Hungarian number of 20 digits",
      { country_code: "HU", account_number: "11773016-11111018-0000" },
      "invalid_format: a Hungarian account number has 16 or 24 digits (bank and branch codes included), got 20 characters",
    ],
  ])("%s: invalid_format", (_, request, answer) => {
    expect(built(request)).toBe(answer);
  });

  test("an exception of a national check is built: a Viva Wallet account fails Luhn but is real", () => {
    expect(built({ country_code: "FI", account_number: "79823415324729" })).toBe("FI3679823415324729");
  });
});

describe("hostile parts", () => {
  test("random strings in every part never throw, and always give an IBAN or a refusal", () => {
    const random = prng(1717);
    const alphabet = "0123456789 -./ABCZabcz\u00a0\u2013\u0000ä😀";
    const text = (length: number) =>
      Array.from({ length }, () => alphabet[random.int(alphabet.length)] as string).join("");
    const answers = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const country = random.pick([...BUILD_COUNTRIES, "SE", "", "de"]);
      const outcome = builder.build({
        country_code: country,
        ...(random.int(2) === 0 && { bank_code: text(random.int(12)) }),
        ...(random.int(2) === 0 && { branch_code: text(random.int(8)) }),
        ...(random.int(4) > 0 && { account_number: text(random.int(30)) }),
      });
      answers.add(outcome.ok ? "ok" : outcome.code);
      if (outcome.ok) expect(outcome.iban.valid).toBe(true);
    }
    expect([...answers].filter((answer) => answer !== "ok").sort()).toEqual([
      "invalid_country",
      "invalid_format",
      "invalid_request",
    ]);
  });

  test("a valid IBAN comes out whenever one does: its check digits are the ISO ones", () => {
    expect(built({ country_code: "LT", bank_code: "10000", account_number: "11101001000" })).toBe(
      ibanOf("LT", "1000011101001000"),
    );
  });
});
