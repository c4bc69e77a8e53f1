import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Usage, ValidateResponse } from "../../src/http/schemas.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const VALID = { iban: "DE89370400440532013000" };

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ start: "2026-03-15T12:00:10Z" });
});
afterAll(() => harness.close());

async function usage(secret: string): Promise<Usage> {
  return (await harness.request<Usage>("GET", "/usage", { key: secret })).body;
}

describe("per-minute limit", () => {
  test("the 11th request of a free key in one minute is 429 rate_limited until the next minute", async () => {
    const { secret, keyId } = await harness.createKey("free");
    for (let i = 1; i <= 10; i++) {
      const response = await harness.validate(secret, VALID);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit")).toBe("10");
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(10 - i));
    }
    const limited = await harness.validate(secret, VALID);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: { code: "rate_limited" } });
    expect(limited.headers.get("retry-after")).toBe("50");
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    // Rate-limited requests are neither billed nor counted as validate requests (and /usage
    // itself is over the limit now, so the meter is asked directly).
    expect(await harness.services.meter.usage(keyId, harness.clock.now())).toEqual({
      used: 10,
      requests: 10,
    });
    harness.clock.advance(50_000);
    expect((await harness.validate(secret, VALID)).status).toBe(200);
  });

  test("malformed requests and /usage count against the limit too", async () => {
    const { secret } = await harness.createKey("free", { rate: 3 });
    await harness.request("POST", "/validate", { key: secret, rawBody: "garbage" });
    await harness.request("GET", "/usage", { key: secret });
    expect((await harness.validate(secret, VALID)).status).toBe(200);
    expect((await harness.validate(secret, VALID)).status).toBe(429);
  });

  test("a per-key override replaces the plan's limit", async () => {
    const { secret } = await harness.createKey("free", { rate: 2 });
    expect((await harness.validate(secret, VALID)).headers.get("x-ratelimit-limit")).toBe("2");
  });
});

describe("monthly quota and billing", () => {
  test("billing per kind of request, with the usage block and quota headers after each", async () => {
    const { secret } = await harness.createKey("pro");
    const cases: [Record<string, unknown>, number, boolean][] = [
      [VALID, 200, true],
      [{ iban: "DE89370400440532013001" }, 200, true],
      [{ iban: "DE8937040044053201300" }, 400, false],
      [{ iban: "XX00" }, 400, false],
      [{ iban: "DE89370400440532013000", vat: "DE12345" }, 200, true],
      [{ vat: "DE12345" }, 400, false],
      // VIES answers (fresh) beside a valid IBAN: two fresh results, one unit.
      [{ vat: "NL854265259B01", iban: "DE89370400440532013000" }, 200, true],
      // The same number again is a cache hit: the IBAN alone is billed, once.
      [{ vat: "NL854265259B01", iban: "GB29NWBK60161331926819" }, 200, true],
      [{ vat: "NL854265259B01" }, 200, false],
      // A fresh VAT answer alone: one unit; VIES down beside a valid IBAN: the IBAN's unit.
      [{ vat: "IE6388047V" }, 200, true],
      [{ vat: "LU20260743", iban: "DE89370400440532013000", down: true }, 200, true],
    ];
    let used = 0;
    for (const [{ down, ...body }, status, billable] of cases) {
      if (down) harness.vies.setBehaviour("LU", { kind: "fault", fault: "MS_UNAVAILABLE" });
      const response = await harness.validate<ValidateResponse>(secret, body);
      if (down) harness.vies.clearBehaviour("LU");
      expect(response.status).toBe(status);
      if (billable) used += 1;
      if (status === 200) {
        expect(response.body.billable).toBe(billable);
        expect(response.body.usage).toEqual({
          plan: "pro",
          used,
          limit: 10000,
          remaining: 10000 - used,
          reset_at: "2026-04-01T00:00:00.000Z",
        });
      }
      expect(response.headers.get("x-quota-limit")).toBe("10000");
      expect(response.headers.get("x-quota-remaining")).toBe(String(10000 - used));
      expect(response.headers.get("x-quota-reset")).toBe("2026-04-01T00:00:00.000Z");
    }
    expect(await usage(secret)).toMatchObject({
      used,
      requests_this_month: cases.length,
      remaining: 10000 - used,
    });
  });

  test("a used-up quota refuses fresh work with 429 quota_exceeded until the 1st", async () => {
    const { secret } = await harness.createKey("pro", { quota: 2, rate: 100 });
    expect((await harness.validate(secret, VALID)).status).toBe(200);
    expect((await harness.validate(secret, VALID)).status).toBe(200);
    const refused = await harness.validate(secret, VALID);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: "quota_exceeded" } });
    const untilReset = Math.ceil((Date.parse("2026-04-01T00:00:00Z") - harness.clock.now()) / 1000);
    expect(refused.headers.get("retry-after")).toBe(String(untilReset));
    expect(refused.headers.get("x-quota-remaining")).toBe("0");
    // Input rejected before any billable work is still answered.
    expect((await harness.validate(secret, { iban: "DE89" })).status).toBe(400);
    expect(await usage(secret)).toMatchObject({ used: 2, remaining: 0, requests_this_month: 4 });
  });

  test("the quota resets at 00:00 UTC on the 1st (injected clock)", async () => {
    const local = await startHarness({ start: "2026-04-30T23:59:58Z" });
    try {
      const { secret } = await local.createKey("pro", { quota: 1, rate: 100 });
      expect((await local.validate(secret, VALID)).status).toBe(200);
      expect((await local.validate(secret, VALID)).status).toBe(429);
      local.clock.advance(2_000);
      const fresh = await local.validate<ValidateResponse>(secret, VALID);
      expect(fresh.status).toBe(200);
      expect(fresh.body.usage).toMatchObject({ used: 1, reset_at: "2026-06-01T00:00:00.000Z" });
      const report = (await local.request<Usage>("GET", "/usage", { key: secret })).body;
      expect(report).toMatchObject({
        used: 1,
        requests_this_month: 1,
        period_start: "2026-05-01T00:00:00.000Z",
        reset_at: "2026-06-01T00:00:00.000Z",
      });
    } finally {
      await local.close();
    }
  });

  test("200 concurrent billable requests with 50 units left: exactly 50 answered and billed", async () => {
    const { secret } = await harness.createKey("pro", { quota: 100, rate: 1000 });
    await Promise.all(Array.from({ length: 50 }, () => harness.validate(secret, VALID)));
    const responses = await Promise.all(Array.from({ length: 200 }, () => harness.validate(secret, VALID)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(50);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(150);
    expect(responses.every((r) => r.status === 200 || r.body.error !== undefined)).toBe(true);
    expect(await usage(secret)).toMatchObject({ used: 100, remaining: 0, requests_this_month: 250 });
  });

  test("GET /usage reports the spec's fields and consumes no quota", async () => {
    const { secret, keyId } = await harness.createKey("basic");
    await harness.validate(secret, VALID);
    const first = await usage(secret);
    const second = await usage(secret);
    expect(second).toEqual(first);
    expect(first).toEqual({
      plan: "basic",
      plan_name: "Basic",
      price_usd_per_month: 19,
      monthly_quota: 2000,
      used: 1,
      remaining: 1999,
      period_start: "2026-03-01T00:00:00.000Z",
      reset_at: "2026-04-01T00:00:00.000Z",
      rate_limit_per_minute: 60,
      requests_this_month: 1,
      key_id: keyId,
    });
  });
});

describe("revocation", () => {
  test("a revoked key is refused within the key cache bound", async () => {
    const local = await startHarness({ env: { KEY_CACHE_TTL_MS: "5000" } });
    try {
      const { secret, keyId } = await local.createKey("pro");
      expect((await local.validate(secret, VALID)).status).toBe(200);
      await local.services.keyAdmin.revoke(keyId);
      // Within the bound the cached resolution may still be used...
      local.clock.advance(2_000);
      expect((await local.validate(secret, VALID)).status).toBe(200);
      // ...past it, never.
      local.clock.advance(3_000);
      expect((await local.validate(secret, VALID)).status).toBe(403);
    } finally {
      await local.close();
    }
  });
});
