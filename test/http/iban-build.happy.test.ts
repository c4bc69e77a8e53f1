import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { IbanBuildResponse } from "../../src/iban/build/schema.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const GATEWAY_SECRET = "gateway-shared-secret-0123456789";
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ env: { GATEWAY_PROXY_SECRET: GATEWAY_SECRET } });
});
afterAll(() => harness.close());

type Usage = { used: number; requests_this_month: number };

describe("POST /iban/build", () => {
  test("a German BLZ and account number: 200, the IBAN's full result, one unit billed and counted", async () => {
    const { secret } = await harness.createKey("basic");
    const before = await harness.request<Usage>("GET", "/usage", { key: secret });
    const response = await harness.request<IbanBuildResponse>("POST", "/iban/build", {
      key: secret,
      body: { country_code: "DE", bank_code: "37040044", account_number: "532013000" },
    });
    expect(response.status).toBe(200);
    expect(response.body.request_id).toBe(response.headers.get("x-request-id") as string);
    expect(response.body.iban).toMatchObject({
      input: "DE89370400440532013000",
      valid: true,
      iban: "DE89370400440532013000",
      iban_formatted: "DE89 3704 0044 0532 0130 00",
      bank_code: "37040044",
      account_number: "0532013000",
      bank: { name: "Commerzbank", bic: "COBADEFFXXX" },
      national_check: "passed",
      error: null,
      warning: null,
    });
    expect(response.body.billable).toBe(true);
    expect(response.body.usage).toMatchObject({ plan: "basic", used: 1, limit: 2000, remaining: 1999 });
    expect(response.headers.get("x-quota-remaining")).toBe("1999");
    expect(response.headers.get("x-ratelimit-limit")).toBe("60");
    const after = await harness.request<Usage>("GET", "/usage", { key: secret });
    expect([after.body.used, after.body.requests_this_month]).toEqual([
      before.body.used + 1,
      before.body.requests_this_month + 1,
    ]);
  });

  test("an ES CCC in one string, as printed", async () => {
    const { secret } = await harness.createKey("pro");
    const response = await harness.request<IbanBuildResponse>("POST", "/iban/build", {
      key: secret,
      body: { country_code: "es", account_number: "2100 0418 45 0200051332" },
    });
    expect(response.status).toBe(200);
    expect(response.body.iban).toMatchObject({ iban: "ES9121000418450200051332", bank: { bic: "CAIXESBB" } });
  });

  test("with an Idempotency-Key, a repeat gets the first answer and is billed nothing", async () => {
    const { secret } = await harness.createKey("pro");
    const headers = { "idempotency-key": crypto.randomUUID() };
    const body = { country_code: "IT", bank_code: "05428", branch_code: "11101", account_number: "123456" };
    const first = await harness.request<IbanBuildResponse>("POST", "/iban/build", {
      key: secret,
      body,
      headers,
    });
    const again = await harness.request<IbanBuildResponse>("POST", "/iban/build", {
      key: secret,
      body,
      headers,
    });
    expect(first.body.iban.iban).toBe("IT60X0542811101000000123456");
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const usage = await harness.request<Usage>("GET", "/usage", { key: secret });
    expect(usage.body.used).toBe(1);
  });

  test("through the gateway, the build is reported billable", async () => {
    const response = await harness.request<IbanBuildResponse>("POST", "/iban/build", {
      body: { country_code: "CZ", account_number: "19-2000145399/0800" },
      headers: { "x-gateway-proxy-secret": GATEWAY_SECRET, "x-gateway-user": `build-${crypto.randomUUID()}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gateway-billing")).toBe("Validations=1");
    expect(response.body.usage).toMatchObject({ plan: "rapidapi", used: 1, limit: null });
  });
});
