import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ValidateResponse } from "../../src/http/schemas.ts";
import { type Harness, startHarness } from "../support/harness.ts";

let harness: Harness;
let key: string;

beforeAll(async () => {
  harness = await startHarness();
  key = (await harness.createKey("pro")).secret;
});
afterAll(() => harness.close());

describe("POST /validate with an IBAN", () => {
  test("a valid IBAN fills every field, with the bank, and is billed", async () => {
    const response = await harness.validate<ValidateResponse>(key, { iban: "DE89 3704 0044 0532 0130 00" });
    expect(response.status).toBe(200);
    expect(response.body.request_id).toBe(response.headers.get("x-request-id") as string);
    expect(response.body.iban).toEqual({
      input: "DE89 3704 0044 0532 0130 00",
      valid: true,
      iban: "DE89370400440532013000",
      iban_formatted: "DE89 3704 0044 0532 0130 00",
      country_code: "DE",
      check_digits: "89",
      bban: "370400440532013000",
      bank_code: "37040044",
      branch_code: null,
      account_number: "0532013000",
      sepa: true,
      bank: { name: "Commerzbank", bic: "COBADEFFXXX" },
      national_check: "passed",
      source: "offline",
      cached: false,
      error: null,
      warning: null,
    });
    expect(response.body.vat).toBeUndefined();
    expect(response.body.billable).toBe(true);
    expect(response.body.usage).toMatchObject({
      plan: "pro",
      limit: 10000,
      reset_at: "2026-04-01T00:00:00.000Z",
    });
  });

  test("a checksum failure is a definitive answer: 200, valid false, invalid_checksum, billed", async () => {
    const response = await harness.validate<ValidateResponse>(key, { iban: "DE89370400440532013001" });
    expect(response.status).toBe(200);
    expect(response.body.iban).toMatchObject({
      valid: false,
      country_code: "DE",
      error: { code: "invalid_checksum" },
    });
    expect(response.body.billable).toBe(true);
  });

  test("print format with a leading IBAN, lower case and odd separators is accepted", async () => {
    const response = await harness.validate<ValidateResponse>(key, {
      iban: "iban gb82-west.1234\t5698 7654 32",
    });
    expect(response.status).toBe(200);
    expect(response.body.iban).toMatchObject({
      valid: true,
      iban: "GB82WEST12345698765432",
      country_code: "GB",
    });
  });

  test.each([
    ["DE8937040044053201300", "invalid_length"],
    ["XX89370400440532013000", "invalid_country"],
    ["DE89370400440532O13000", "invalid_format"],
  ])("%s is rejected with %s, 400, not billed", async (iban, code) => {
    const before = await harness.request<{ used: number; requests_this_month: number }>("GET", "/usage", {
      key,
    });
    const response = await harness.validate(key, { iban });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { code } });
    const after = await harness.request<{ used: number; requests_this_month: number }>("GET", "/usage", {
      key,
    });
    expect(after.body.used).toBe(before.body.used);
    expect(after.body.requests_this_month).toBe(before.body.requests_this_month + 1);
  });

  test("GET /health reports the registry version without a key", async () => {
    const response = await harness.request<{ registry_version: string }>("GET", "/health");
    expect(response.status).toBe(200);
    expect(response.body.registry_version).toContain("swift-r100");
  });
});
