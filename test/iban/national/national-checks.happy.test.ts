import { describe, expect, test } from "bun:test";
import { IBAN_RESULT, IBAN_RESULT_NATIONAL_CHECK_FAILED } from "../../../src/http/examples.ts";
import fixture from "../../fixtures/iban-national-checks.json";
import vectors from "../../fixtures/ibans.json";
import { engine, ibanOf, registry } from "../support.ts";

/** The countries issue 17 lists, Åland (Finnish accounts) and Germany. */
const COVERED = [
  "AL",
  "BA",
  "BE",
  "CZ",
  "SK",
  "EE",
  "ES",
  "FI",
  "AX",
  "FR",
  "MC",
  "GF",
  "GP",
  "MQ",
  "RE",
  "PF",
  "NC",
  "PM",
  "TF",
  "WF",
  "YT",
  "BL",
  "MF",
  "CF",
  "CG",
  "GA",
  "GQ",
  "TD",
  "KM",
  "DJ",
  "HR",
  "HU",
  "IS",
  "IT",
  "SM",
  "ME",
  "MK",
  "MR",
  "NO",
  "PL",
  "PT",
  "RS",
  "SI",
  "TL",
  "TN",
  "DE",
].sort();

type Entry = { iban: string; source: string; note?: string };
const countries = fixture.countries as Record<string, { valid: Entry[]; invalid: Entry[] }>;

function judged(iban: string) {
  const result = engine.validate(iban);
  return {
    valid: result.valid,
    national_check: result.national_check,
    warning: result.warning?.code ?? null,
  };
}

describe("national check digits (test/fixtures/iban-national-checks.json)", () => {
  test("every covered country has at least three valid and two invalid vectors", () => {
    expect(Object.keys(countries).sort()).toEqual(COVERED);
    for (const country of COVERED) {
      const { valid, invalid } = countries[country] as { valid: Entry[]; invalid: Entry[] };
      expect([country, valid.length >= 3, invalid.length >= 2]).toEqual([country, true, true]);
    }
  });

  test.each(
    COVERED,
  )("%s: valid vectors pass, invalid ones fail with a warning, all stay valid IBANs", (country) => {
    const { valid, invalid } = countries[country] as { valid: Entry[]; invalid: Entry[] };
    const answers = [...valid, ...invalid].map(
      (entry) => `${entry.iban} ${JSON.stringify(judged(entry.iban))}`,
    );
    expect(answers).toEqual([
      ...valid.map(
        (entry) =>
          `${entry.iban} ${JSON.stringify({ valid: true, national_check: "passed", warning: null })}`,
      ),
      ...invalid.map(
        (entry) =>
          `${entry.iban} ${JSON.stringify({ valid: true, national_check: "failed", warning: "national_check_failed" })}`,
      ),
    ]);
  });

  test("the known exceptions answer as listed (real accounts are never failed)", () => {
    const answers = fixture.exceptions.map((entry) => [
      entry.iban,
      engine.validate(entry.iban).national_check,
    ]);
    expect(answers).toEqual(fixture.exceptions.map((entry) => [entry.iban, entry.expected]));
    const realAccounts = fixture.exceptions.filter((entry) => !entry.note.startsWith("Fio"));
    for (const entry of realAccounts) expect(engine.validate(entry.iban).national_check).not.toBe("failed");
  });

  test("the document's IBAN examples are what the engine answers", () => {
    for (const example of [IBAN_RESULT, IBAN_RESULT_NATIONAL_CHECK_FAILED]) {
      expect(engine.validate(example.input)).toEqual(example);
    }
  });

  test("the warning names the country's rule in plain words", () => {
    const messages = [
      "FR6020041010050500013M52606",
      "ES4221000418450200061332",
      ibanOf("DE", "370400440532013100"),
    ].map((iban) => engine.validate(iban).warning);
    expect(messages).toEqual([
      {
        code: "national_check_failed",
        message: "the RIB key does not match the bank, branch and account number",
      },
      {
        code: "national_check_failed",
        message: "the control digits (DC) do not match the bank, branch and account number",
      },
      {
        code: "national_check_failed",
        message: "the account number fails check method 13 of the Deutsche Bundesbank, which its bank uses",
      },
    ]);
  });
});

describe("national checks over the whole corpus (test/fixtures/ibans.json)", () => {
  test("of the 1345 valid vectors, only schwifty's SI72 example fails its national check", () => {
    const failed = vectors.valid
      .map((vector) => engine.validate(vector.input))
      .filter((result) => result.national_check === "failed")
      .map((result) => result.iban);
    expect(failed).toEqual(["SI72000001234567892"]);
  });

  test("the three ES vectors labelled invalid-national are valid IBANs whose national check fails", () => {
    const national = vectors.edge_cases.filter((vector) => vector.expected === "invalid-national");
    expect(national.map((vector) => judged(vector.input))).toEqual(
      new Array(3).fill({ valid: true, national_check: "failed", warning: "national_check_failed" }),
    );
  });

  test("countries without a national check, and every invalid IBAN, are not_applicable without a warning", () => {
    const uncovered = [...registry.formats.keys()].filter((country) => !COVERED.includes(country));
    const answers = vectors.valid
      .filter((vector) => uncovered.includes(vector.country))
      .map((vector) => engine.validate(vector.input))
      .concat(vectors.invalid.map((vector) => engine.validate(vector.input)));
    expect(answers.length).toBeGreaterThan(500);
    expect(answers.filter((result) => result.national_check !== "not_applicable" || result.warning)).toEqual(
      [],
    );
  });

  test("the Dutch 11-test is not applied: an account failing it is not_applicable", () => {
    // NL26ABNA0417164500 is iban4j's example of an account failing the 11-test.
    expect(judged("NL26ABNA0417164500")).toEqual({
      valid: true,
      national_check: "not_applicable",
      warning: null,
    });
  });

  test("an IBAN failing mod-97 gets no national verdict, even when its national check would fail", () => {
    expect(judged(ibanOf("FR", "30001007941234567890186").replace(/^FR\d\d/, "FR00"))).toEqual({
      valid: false,
      national_check: "not_applicable",
      warning: null,
    });
  });
});
