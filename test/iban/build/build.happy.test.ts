import { describe, expect, test } from "bun:test";
import { IBAN_BUILD_RESPONSES } from "../../../src/http/examples.ts";
import { BUILD_COUNTRIES } from "../../../src/iban/build/build.ts";
import { RIB_COUNTRIES } from "../../../src/iban/national/rib.ts";
import swift from "../../fixtures/iban-build-examples.json";
import national from "../../fixtures/iban-national-checks.json";
import vectors from "../../fixtures/ibans.json";
import { engine, ibanOf, registry } from "../support.ts";
import { builder, built } from "./support.ts";

describe("building IBANs from domestic account numbers", () => {
  test("the countries the issue lists, the RIB zone with them, are supported", () => {
    const listed = "AT BE CZ DE DK EE ES FI FR GB IE HR HU IS IT SM LT LU LV MC NL NO PL PT SI SK".split(" ");
    expect(BUILD_COUNTRIES).toEqual([...new Set([...listed, ...RIB_COUNTRIES])].sort());
  });

  test("SWIFT's domestic examples build to its IBAN examples (test/fixtures/iban-build-examples.json)", () => {
    const answers = swift.examples.map(({ iban, note: _, ...request }) => [
      request.country_code,
      built(request),
    ]);
    expect(answers).toEqual(swift.examples.map((example) => [example.country_code, example.iban]));
  });

  test("round trip: every valid vector of a supported country builds back from its bank, branch and account", () => {
    const inputs = [
      ...vectors.valid.map((vector) => vector.input),
      ...Object.values(national.countries).flatMap((group) => group.valid.map((entry) => entry.iban)),
    ];
    const answers: string[] = [];
    const expected: string[] = [];
    for (const input of inputs) {
      const result = engine.validate(input);
      const country = result.country_code as string;
      if (!BUILD_COUNTRIES.includes(country)) continue;
      const format = registry.formats.get(country);
      // The account: what follows the bank and branch codes (IT and SM: the CIN in front is computed).
      const end = Math.max(format?.bank?.[1] ?? 0, format?.branch?.[1] ?? 0);
      const answer = built({
        country_code: country,
        ...(result.bank_code !== null && { bank_code: result.bank_code }),
        ...(result.branch_code !== null && { branch_code: result.branch_code }),
        account_number: (result.bban as string).slice(end),
      });
      answers.push(`${result.iban} → ${answer}`);
      // Refused, rightly: an account failing its national check, and German banks the registry lacks.
      const bank = result.bank_code as string;
      const refusal =
        result.national_check === "failed"
          ? `invalid_format: the account number fails its national check: ${result.warning?.message}`
          : country === "DE" && !registry.germany.banks.has(Number(bank))
            ? `invalid_format: bank code ${bank} is not in the registry of German banks`
            : result.iban;
      expected.push(`${result.iban} → ${refusal}`);
    }
    expect(answers).toEqual(expected);
    expect(answers.length).toBeGreaterThan(900);
    expect(expected.filter((line) => line.includes("invalid_format"))).toHaveLength(4);
  });

  test("the document's example answer is what the builder gives", () => {
    const outcome = builder.build({ country_code: "DE", bank_code: "37040044", account_number: "532013000" });
    expect(outcome.ok && outcome.iban).toEqual(IBAN_BUILD_RESPONSES.de?.value.iban as never);
  });

  test("the built IBAN's full result: components, bank, national check", () => {
    const outcome = builder.build({ country_code: "DE", bank_code: "37040044", account_number: "532013000" });
    expect(outcome.ok && outcome.iban).toMatchObject({
      valid: true,
      iban: "DE89370400440532013000",
      bank_code: "37040044",
      account_number: "0532013000",
      bank: { name: "Commerzbank", bic: "COBADEFFXXX" },
      national_check: "passed",
      warning: null,
    });
  });
});

describe("domestic forms as people have them", () => {
  test.each([
    [
      "ES CCC in one string",
      { country_code: "ES", account_number: "2100 0418 45 0200051332" },
      "ES9121000418450200051332",
    ],
    [
      "ES in parts",
      { country_code: "es", bank_code: "2100", branch_code: "0418", account_number: "45-0200051332" },
      "ES9121000418450200051332",
    ],
    [
      "CZ prefix-number/bank",
      { country_code: "CZ", account_number: "19-2000145399/0800" },
      "CZ6508000000192000145399",
    ],
    [
      "CZ number/bank, no prefix",
      { country_code: "CZ", account_number: "2000145399 / 0800" },
      ibanOf("CZ", "08000000002000145399"),
    ],
    [
      "CZ number and bank_code",
      { country_code: "CZ", bank_code: "0800", account_number: "19-2000145399" },
      "CZ6508000000192000145399",
    ],
    [
      "SK as printed",
      { country_code: "SK", account_number: "19-8742637541/1200" },
      "SK3112000000198742637541",
    ],
    [
      "DE account without leading zeros",
      { country_code: "DE", bank_code: "370 400 44", account_number: "532013000" },
      "DE89370400440532013000",
    ],
    ["BE as printed", { country_code: "BE", account_number: "539-0075470-34" }, "BE68539007547034"],
    [
      "FR RIB in one string",
      { country_code: "FR", account_number: "20041 01005 0500013M026 06" },
      "FR1420041010050500013M02606",
    ],
    [
      "FR RIB in parts",
      { country_code: "FR", bank_code: "20041", branch_code: "01005", account_number: "0500013M026 06" },
      "FR1420041010050500013M02606",
    ],
    [
      "a RIB of Réunion",
      { country_code: "RE", account_number: "20041 01005 0500013M026 06" },
      ibanOf("RE", "20041010050500013M02606"),
    ],
    [
      "PL NRB with its check digits",
      { country_code: "PL", account_number: "61 1090 1014 0000 0712 1981 2874" },
      "PL61109010140000071219812874",
    ],
    [
      "PL sort code and account",
      { country_code: "PL", bank_code: "10901014", account_number: "0000 0712 1981 2874" },
      "PL61109010140000071219812874",
    ],
    [
      "HU 16 digits",
      { country_code: "HU", account_number: "11773016-11111018" },
      "HU42117730161111101800000000",
    ],
    [
      "HU 24 digits",
      { country_code: "HU", account_number: "11773016-11111018-00000000" },
      "HU42117730161111101800000000",
    ],
    [
      "HR bank-account",
      { country_code: "HR", account_number: "1001005-1863000160" },
      "HR1210010051863000160",
    ],
    ["DK reg-account, short", { country_code: "DK", account_number: "40-440116243" }, "DK5000400440116243"],
    [
      "IS as printed",
      { country_code: "IS", account_number: "0159-26-007654-551073-0339" },
      "IS140159260076545510730339",
    ],
    [
      "IS bank, then the rest in one group",
      { country_code: "IS", account_number: "0159-260076545510730339" },
      "IS140159260076545510730339",
    ],
    [
      "IS groups without leading zeros",
      { country_code: "IS", account_number: "159-26-7654-551073-339" },
      "IS140159260076545510730339",
    ],
    [
      "IT, CIN computed",
      { country_code: "IT", bank_code: "05428", branch_code: "11101", account_number: "123456" },
      "IT60X0542811101000000123456",
    ],
    [
      "SM, CIN computed",
      { country_code: "SM", bank_code: "03225", branch_code: "09800", account_number: "270100" },
      "SM86U0322509800000000270100",
    ],
    ["FI short form, bank 1", { country_code: "FI", account_number: "123456-785" }, "FI2112345600000785"],
    [
      // ibandit's savings-bank example (423456, 78510), its last digit made the Luhn check digit
      "FI short form, bank 4 (zeros after the first account digit)",
      { country_code: "FI", account_number: "423456-78514" },
      ibanOf("FI", "42345670008514"),
    ],
    [
      "EE, bank from the account",
      { country_code: "EE", account_number: "221020145685" },
      "EE382200221020145685",
    ],
    [
      "GB with the bank's BIC",
      { country_code: "GB", bank_code: "NWBKGB2L", branch_code: "60-16-13", account_number: "31926819" },
      "GB29NWBK60161331926819",
    ],
    [
      "IE 4-letter bank code",
      { country_code: "IE", bank_code: "aibk", branch_code: "93 11 52", account_number: "12345678" },
      "IE29AIBK93115212345678",
    ],
    [
      "NL with the bank's BIC",
      { country_code: "NL", bank_code: "ABNANL2A", account_number: "417164300" },
      "NL91ABNA0417164300",
    ],
    ["NO dotted", { country_code: "NO", account_number: "8601.11.17947" }, "NO9386011117947"],
    [
      "PT NIB",
      { country_code: "PT", account_number: "0002 0123 12345678901 54" },
      "PT50000201231234567890154",
    ],
    [
      "AT BLZ and account",
      { country_code: "AT", bank_code: "19043", account_number: "234573201" },
      "AT611904300234573201",
    ],
    [
      "DE, IBAN rule 0005.03: the account padded (ibandit's case)",
      { country_code: "DE", bank_code: "26580070", account_number: "7325022" },
      ibanOf("DE", "265800700732502200"),
    ],
    [
      "DE, IBAN rule 0004: a donation account mapped to the bank's own (ibandit's case)",
      { country_code: "DE", bank_code: "10050000", account_number: "112233" },
      ibanOf("DE", "100500000630025819"),
    ],
  ])("%s", (_, request, iban) => {
    expect(built(request)).toBe(iban);
  });
});
