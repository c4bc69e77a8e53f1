import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../support/harness.ts";

let harness: Harness;
let key: string;

beforeAll(async () => {
  harness = await startHarness();
  key = (await harness.createKey("pro")).secret;
});
afterAll(() => harness.close());

const FIELDS = "name, street, postcode, city, company_type";

describe("POST /validate with a `match` it cannot use", () => {
  test.each([
    [
      "without `vat`",
      { match: { name: "GitHub" } },
      "`match` is compared with the record of a VAT number: send `vat` with it",
    ],
    [
      "with an IBAN but no `vat`",
      { iban: "NL91ABNA0417164300", match: { name: "GitHub" } },
      "`match` is compared with the record of a VAT number: send `vat` with it",
    ],
    ["null", { vat: "NL854265259B01", match: null }, `\`match\` must be an object with any of ${FIELDS}`],
    [
      "a string",
      { vat: "NL854265259B01", match: "GitHub" },
      `\`match\` must be an object with any of ${FIELDS}`,
    ],
    [
      "an array",
      { vat: "NL854265259B01", match: [{ name: "GitHub" }] },
      `\`match\` must be an object with any of ${FIELDS}`,
    ],
    ["empty", { vat: "NL854265259B01", match: {} }, `\`match\` needs at least one of ${FIELDS}, not blank`],
    [
      "only blank values",
      { vat: "NL854265259B01", match: { name: " ", city: "" } },
      `\`match\` needs at least one of ${FIELDS}, not blank`,
    ],
    [
      "a field it does not know",
      { vat: "NL854265259B01", match: { name: "GitHub", adress: "x" } },
      `\`match\` has no field \`adress\`; it takes ${FIELDS}`,
    ],
    ["a number", { vat: "NL854265259B01", match: { postcode: 1017 } }, "`match.postcode` must be a string"],
    [
      "a value over 200 characters",
      { vat: "NL854265259B01", match: { street: "s".repeat(201) } },
      "`match.street` must be at most 200 characters, got 201",
    ],
    [
      "a NUL character",
      { vat: "NL854265259B01", match: { name: "Git\u0000Hub" } },
      "`match.name` must not contain a NUL character",
    ],
    [
      "a lone surrogate",
      { vat: "NL854265259B01", match: { city: "Amsterdam\ud800" } },
      "`match.city` must not contain a lone UTF-16 surrogate (\\ud800–\\udfff)",
    ],
  ])("%s → 400 invalid_request, nothing asked upstream, nothing counted", async (_, body, message) => {
    harness.vies.reset();
    const before = (await harness.request("GET", "/usage", { key })).body;
    const response = await harness.validate(key, body);
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400,
      body: { error: { code: "invalid_request", message } },
    });
    expect(harness.vies.calls.total).toBe(0);
    expect((await harness.request("GET", "/usage", { key })).body).toMatchObject({ used: before.used });
  });

  test("hostile keys are refused, not evaluated", async () => {
    for (const raw of [
      '{"vat":"NL854265259B01","match":{"__proto__":{"name":"x"}}}',
      '{"vat":"NL854265259B01","match":{"toString":1}}',
    ]) {
      const response = await harness.request("POST", "/validate", {
        key,
        rawBody: raw,
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: { code: "invalid_request" } });
    }
  });
});
