import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../support/harness.ts";

const GATEWAY_SECRET = "gateway-shared-secret-0123456789";
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ env: { GATEWAY_PROXY_SECRET: GATEWAY_SECRET } });
});
afterAll(() => harness.close());

type Usage = { used: number; requests_this_month: number };
type ErrorBody = { error: { code: string; message: string } };

describe("POST /iban/build refusals: 400, with the error shape, nothing billed", () => {
  test.each([
    [
      { country_code: "SE", account_number: "1234 12 3456 1" },
      "invalid_country",
      /^"SE": IBANs are built for AT, BE, /,
    ],
    [{ account_number: "532013000" }, "invalid_request", /^send `country_code`$/],
    [{ country_code: "DE", bank_code: "37040044" }, "invalid_request", /`account_number`/],
    [
      { country_code: "GB", branch_code: "601613", account_number: "31926819" },
      "invalid_request",
      /^send `bank_code`/,
    ],
    [
      { country_code: "ES", account_number: "2100 0418 42 0200051332" },
      "invalid_format",
      /^the account number fails its national check: the control digits \(DC\) do not match/,
    ],
    [
      { country_code: "DE", bank_code: "12345678", account_number: "532013000" },
      "invalid_format",
      /^bank code 12345678 is not in the registry of German banks$/,
    ],
    [
      { country_code: "DE", bank_code: "37040044", account_number: 532013000 },
      "invalid_request",
      /^`account_number` must be a string$/,
    ],
    [
      { country_code: "DE", bank_code: "37040044", account_number: "x".repeat(61) },
      "invalid_request",
      /at most 60 characters/,
    ],
  ])("%j: %s", async (body, code, message) => {
    const { secret } = await harness.createKey("basic");
    const before = await harness.request<Usage>("GET", "/usage", { key: secret });
    const response = await harness.request<ErrorBody>("POST", "/iban/build", { key: secret, body });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toMatch(message);
    const after = await harness.request<Usage>("GET", "/usage", { key: secret });
    expect([after.body.used, after.body.requests_this_month]).toEqual([
      before.body.used,
      before.body.requests_this_month,
    ]);
  });

  test("a body that is not a JSON object", async () => {
    const { secret } = await harness.createKey("basic");
    for (const rawBody of ["", "[]", "not json", '"DE"']) {
      const response = await harness.request<ErrorBody>("POST", "/iban/build", { key: secret, rawBody });
      expect([rawBody, response.status, response.body.error.code]).toEqual([rawBody, 400, "invalid_request"]);
    }
  });

  test("no key is 401, and a used-up quota 429 quota_exceeded, before anything is built", async () => {
    const body = { country_code: "DE", bank_code: "37040044", account_number: "532013000" };
    expect((await harness.request<ErrorBody>("POST", "/iban/build", { body })).status).toBe(401);
    const { secret } = await harness.createKey("free", { quota: 1 });
    expect((await harness.request("POST", "/iban/build", { key: secret, body })).status).toBe(200);
    const refused = await harness.request<ErrorBody>("POST", "/iban/build", { key: secret, body });
    expect([refused.status, refused.body.error.code]).toEqual([429, "quota_exceeded"]);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  test("a refusal through the gateway reports Validations=0", async () => {
    const response = await harness.request<ErrorBody>("POST", "/iban/build", {
      body: { country_code: "XX", account_number: "1" },
      headers: { "x-gateway-proxy-secret": GATEWAY_SECRET, "x-gateway-user": `build-${crypto.randomUUID()}` },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-gateway-billing")).toBe("Validations=0");
  });

  test("another method is 405 with Allow: POST", async () => {
    const { secret } = await harness.createKey("basic");
    const response = await harness.request<ErrorBody>("GET", "/iban/build", { key: secret });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});
