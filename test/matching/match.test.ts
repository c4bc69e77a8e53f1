import { describe, expect, test } from "bun:test";
import { LegalForms, readLegalFormData } from "../../src/matching/legal-forms.ts";
import {
  type AuthorityCodes,
  matchTrader,
  type Registered,
  traderDetailsOf,
} from "../../src/matching/match.ts";
import type { MatchRequest } from "../../src/matching/schema.ts";

const forms = new LegalForms(readLegalFormData());
const GITHUB: Registered = { name: "GITHUB B.V.", address: "\nVIJZELSTRAAT 00068\n1017HL AMSTERDAM\n" };
const match = (
  request: MatchRequest,
  registered: Registered | null,
  codes: AuthorityCodes = null,
  country = "NL",
) => matchTrader(request, registered, codes, country, forms.of(country));

const local = (result: "match" | "mismatch") => ({ result, by: "local" as const });
const nobody = { result: "not_processed" as const, by: null };

describe("local matching against the disclosed record", () => {
  test("every sent field compared: match overall, one entry per field sent and no other", () => {
    expect(
      match(
        {
          name: "GitHub BV",
          street: "Vijzelstraat 68",
          postcode: "1017 HL",
          city: "Amsterdam",
          company_type: "BV",
        },
        GITHUB,
      ),
    ).toEqual({
      overall: "match",
      name: local("match"),
      street: local("match"),
      postcode: local("match"),
      city: local("match"),
      company_type: local("match"),
    });
    expect(match({ city: "Amsterdam" }, GITHUB)).toEqual({ overall: "match", city: local("match") });
  });

  test("the name decides a mismatch; without a name, every compared field must mismatch", () => {
    expect(match({ name: "GitLab BV", city: "Amsterdam" }, GITHUB)).toMatchObject({ overall: "mismatch" });
    expect(match({ name: "GitHub BV", city: "Rotterdam" }, GITHUB)).toMatchObject({ overall: "partial" });
    expect(match({ street: "Keizersgracht 1", city: "Rotterdam" }, GITHUB)).toMatchObject({
      overall: "mismatch",
    });
    expect(match({ street: "Keizersgracht 1", city: "Amsterdam" }, GITHUB)).toMatchObject({
      overall: "partial",
    });
  });

  test("fields with nothing to compare are not processed, and do not count", () => {
    const noAddress: Registered = { name: "GITHUB B.V.", address: null };
    expect(match({ name: "GitHub", city: "Amsterdam" }, noAddress)).toEqual({
      overall: "match",
      name: local("match"),
      city: nobody,
    });
    // A company type not understood (here a VIES code) cannot be compared here.
    expect(match({ company_type: "NL-1" }, GITHUB)).toEqual({
      overall: "not_processed",
      company_type: nobody,
    });
  });

  test("nothing disclosed (DE, ES), or no record at all: every field not processed", () => {
    const request = { name: "Siemens AG", postcode: "80333" };
    const expected = { overall: "not_processed" as const, name: nobody, postcode: nobody };
    expect(match(request, { name: null, address: null }, null, "DE")).toEqual(expected);
    expect(match(request, null, null, "DE")).toEqual(expected);
  });
});

describe("the member state's codes come first", () => {
  test("its match and mismatch stand; its not-processed fields fall to local comparison", () => {
    const es: Registered = { name: null, address: null };
    expect(
      match(
        { name: "Industria de Diseño Textil, S.A.", street: "Avenida de la Diputación", city: "Arteixo" },
        es,
        { name: "match", street: "not_processed", city: "mismatch" },
        "ES",
      ),
    ).toEqual({
      overall: "partial",
      name: { result: "match", by: "authority" },
      street: nobody,
      city: { result: "mismatch", by: "authority" },
    });
    expect(match({ name: "GitLab BV", city: "Amsterdam" }, GITHUB, { name: "not_processed" })).toEqual({
      overall: "mismatch",
      name: local("mismatch"),
      city: local("match"),
    });
  });
});

describe("what is asked of the member state", () => {
  test("every sent field, a company type only as a VIES code", () => {
    expect(
      traderDetailsOf({ name: "X", street: "S", postcode: "P", city: "C", company_type: "ES-1" }),
    ).toEqual({
      name: "X",
      street: "S",
      postcode: "P",
      city: "C",
      companyType: "ES-1",
    });
    expect(traderDetailsOf({ name: "X", company_type: "S.L." })).toEqual({ name: "X" });
  });
});
