import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ValidateResponse } from "../../src/http/schemas.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { freshVatResult } from "../support/vat-results.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});
beforeEach(() => harness.vies.reset());
afterAll(() => harness.close());

describe("POST /validate with a VAT number", () => {
  test("a registered number: VIES answer, cached afterwards, the cache hit not billed", async () => {
    const { secret } = await harness.createKey("pro");
    const first = await harness.validate<ValidateResponse>(secret, { vat: "NL 854265259 B01" });
    expect(first.status).toBe(200);
    expect(first.body.vat).toEqual(
      freshVatResult({ input: "NL 854265259 B01", checked_at: new Date(harness.clock.now()).toISOString() }),
    );
    expect(first.body.billable).toBe(true);
    expect(first.body.usage.used).toBe(1);

    harness.clock.advance(HOUR);
    const second = await harness.validate<ValidateResponse>(secret, { vat: "nl854265259b01" });
    expect(second.body.vat).toMatchObject({
      valid: true,
      cached: true,
      stale: false,
      checked_at: first.body.vat?.checked_at,
    });
    expect(second.body.billable).toBe(false);
    expect(second.body.usage.used).toBe(1);
    expect(harness.vies.calls.total).toBe(1);
  });

  test("a number VIES does not know is a definitive valid:false, 200, billed", async () => {
    const { secret } = await harness.createKey("pro");
    const response = await harness.validate<ValidateResponse>(secret, { vat: "DE136695976" });
    expect(response.status).toBe(200);
    expect(response.body.vat).toMatchObject({
      valid: false,
      source: "vies",
      error: null,
      name: null,
      address: null,
    });
    expect(response.body.billable).toBe(true);
  });

  test("a malformed number is rejected locally: 400, source syntax, no VIES call, not billed", async () => {
    const { secret } = await harness.createKey("pro");
    const response = await harness.validate(secret, { vat: "DE12345" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { code: "invalid_format" } });
    const unknown = await harness.validate(secret, { vat: "XX123456789" });
    expect(unknown.body).toMatchObject({ error: { code: "invalid_country" } });
    expect(harness.vies.calls.total).toBe(0);
  });

  test("GR is accepted for Greece and sent to VIES as EL; XI goes to VIES with country GB", async () => {
    const { secret } = await harness.createKey("pro");
    harness.vies.addNumber("EL", "094014201", { valid: true, name: "ΟΡΓΑΝΙΣΜΟΣ", address: "ΑΘΗΝΑ" });
    const greek = await harness.validate<ValidateResponse>(secret, { vat: "GR094014201" });
    expect(greek.body.vat).toMatchObject({ valid: true, vat_number: "EL094014201", country_code: "GR" });
    expect(harness.vies.calls.log.at(-1)).toMatchObject({ countryCode: "EL", vatNumber: "094014201" });
    harness.vies.addNumber("XI", "980780684", { valid: true, name: "NI TRADER", address: "BELFAST" });
    const ni = await harness.validate<ValidateResponse>(secret, { vat: "XI 980 7806 84" });
    expect(ni.body.vat).toMatchObject({ valid: true, country_code: "GB", source: "vies" });
    expect(harness.vies.calls.log.at(-1)).toMatchObject({ countryCode: "XI" });
  });

  test("GB while the UK check is off: 503 service_unavailable, no call, not billed", async () => {
    const { secret } = await harness.createKey("pro");
    const response = await harness.validate(secret, { vat: "GB980780684" });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ error: { code: "service_unavailable" } });
    expect(harness.vies.calls.total).toBe(0);
    const withIban = await harness.validate<ValidateResponse>(secret, {
      vat: "GB980780684",
      iban: "DE89370400440532013000",
    });
    expect(withIban.status).toBe(200);
    expect(withIban.body.vat).toMatchObject({
      valid: null,
      source: null,
      error: { code: "service_unavailable" },
    });
    expect(withIban.body.billable).toBe(true);
  });
});

describe("outages", () => {
  test.each([
    ["MS_UNAVAILABLE", "member_state_unavailable"],
    ["SERVICE_UNAVAILABLE", "service_unavailable"],
    ["MS_MAX_CONCURRENT_REQ", "upstream_rate_limited"],
  ])("%s with nothing cached → 503 %s with Retry-After, not billed", async (fault, code) => {
    const { secret } = await harness.createKey("pro");
    harness.vies.setBehaviour("*", { kind: "fault", fault });
    const response = await harness.validate(secret, { vat: "BE0244142664" });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ error: { code } });
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await harness.request<{ used: number }>("GET", "/usage", { key: secret })).body.used).toBe(0);
  });

  test("one component failing beside an answered one: 200 with the component's error", async () => {
    const { secret } = await harness.createKey("pro");
    harness.vies.setBehaviour("*", { kind: "html", status: 503 });
    const response = await harness.validate<ValidateResponse>(secret, {
      vat: "BE0244142664",
      iban: "BE68539007547034",
    });
    expect(response.status).toBe(200);
    expect(response.body.vat).toMatchObject({
      valid: null,
      cached: false,
      error: { code: "service_unavailable" },
    });
    expect(response.body.iban?.valid).toBe(true);
    expect(response.body.billable).toBe(true);
  });

  test("after the fresh period, an outage serves the last-known-good copy: stale, original checked_at, warning, not billed", async () => {
    const { secret } = await harness.createKey("pro");
    const first = await harness.validate<ValidateResponse>(secret, { vat: "IE6388047V" });
    expect(first.body.vat?.valid).toBe(true);
    harness.clock.advance(2 * DAY);
    harness.vies.setBehaviour("IE", { kind: "fault", fault: "MS_UNAVAILABLE" });
    const stale = await harness.validate<ValidateResponse>(secret, { vat: "IE6388047V" });
    expect(stale.status).toBe(200);
    expect(stale.body.vat).toMatchObject({
      valid: true,
      cached: true,
      stale: true,
      checked_at: first.body.vat?.checked_at,
      error: null,
      warning: { code: "member_state_unavailable" },
    });
    expect(stale.body.billable).toBe(false);
    expect(stale.body.usage.used).toBe(1);
  });

  test("after the last-known-good period nothing is left: 503", async () => {
    const { secret } = await harness.createKey("pro");
    await harness.validate(secret, { vat: "LU20260743" });
    harness.clock.advance(31 * DAY);
    harness.vies.setBehaviour("LU", { kind: "fault", fault: "TIMEOUT" });
    const response = await harness.validate(secret, { vat: "LU20260743" });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ error: { code: "member_state_unavailable" } });
  });
});

describe("quota exhausted", () => {
  test("cache hits are still served, fresh work is refused", async () => {
    const { secret } = await harness.createKey("pro", { quota: 1 });
    expect((await harness.validate(secret, { vat: "BE0244142664" })).status).toBe(200);
    const cached = await harness.validate<ValidateResponse>(secret, { vat: "BE 0244.142.664" });
    expect(cached.status).toBe(200);
    expect(cached.body.vat?.cached).toBe(true);
    expect(cached.body.billable).toBe(false);
    expect(cached.body.usage).toMatchObject({ used: 1, remaining: 0 });
    const fresh = await harness.validate(secret, { vat: "NL854265259B01" });
    expect(fresh.status).toBe(429);
    expect(fresh.body).toMatchObject({ error: { code: "quota_exceeded" } });
    const withIban = await harness.validate(secret, { vat: "BE0244142664", iban: "DE89370400440532013000" });
    expect(withIban.status).toBe(429);
    expect(harness.vies.calls.total).toBe(1);
  });
});

describe("quota exhausted during an outage", () => {
  test("the outage known from VIES's status: the last-known-good copy, unbilled; not known: 429 that says why", async () => {
    const { secret } = await harness.createKey("pro", { quota: 1 });
    const first = await harness.validate<ValidateResponse>(secret, { vat: "IE6388047V" });
    expect(first.body).toMatchObject({ billable: true, usage: { used: 1, remaining: 0 } });
    harness.clock.advance(DAY + 60_000);
    harness.vies.setBehaviour("IE", { kind: "fault", fault: "MS_UNAVAILABLE" });

    // VIES's status does not report it: finding out would take a call, which needs a unit.
    const unknown = await harness.validate<{ error: { code: string; message: string } }>(secret, {
      vat: "IE6388047V",
    });
    expect(unknown.status).toBe(429);
    expect(unknown.body.error.code).toBe("quota_exceeded");
    expect(unknown.body.error.message).toContain("needs a fresh, billable check");

    harness.vies.setStatus({ kind: "json", countries: { IE: "Unavailable" } });
    harness.clock.advance(120_000);
    expect((await harness.request("GET", "/status")).status).toBe(200);
    const calls = harness.vies.calls.total;
    const stale = await harness.validate<ValidateResponse>(secret, { vat: "IE6388047V" });
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({
      billable: false,
      usage: { used: 1, remaining: 0 },
      vat: {
        valid: true,
        cached: true,
        stale: true,
        checked_at: first.body.vat?.checked_at,
        warning: { code: "member_state_unavailable" },
      },
    });
    expect(harness.vies.calls.total).toBe(calls);
    // A number with no copy, or with an IBAN to check beside it, still needs a unit.
    expect((await harness.validate(secret, { vat: "IE8D79739I" })).status).toBe(429);
    const withIban = await harness.validate(secret, { vat: "IE6388047V", iban: "DE89370400440532013000" });
    expect(withIban.status).toBe(429);
    expect((await harness.request<{ used: number }>("GET", "/usage", { key: secret })).body.used).toBe(1);
  });
});

describe("GET /status", () => {
  test("VIES availability per member state, cached", async () => {
    // VAT requests refresh the status in the background; skip past what they cached.
    harness.clock.advance(120_000);
    harness.vies.setStatus({ kind: "json", countries: { DE: "Unavailable", MT: "Monitoring Disabled" } });
    const response = await harness.request<{
      available: boolean;
      cached: boolean;
      countries: { country_code: string; vies_code: string; availability: string }[];
    }>("GET", "/status");
    expect(response.status).toBe(200);
    expect(response.body.available).toBe(true);
    expect(response.body.countries).toContainEqual(
      expect.objectContaining({ country_code: "DE", availability: "unavailable" }),
    );
    expect(response.body.countries).toContainEqual(
      expect.objectContaining({ country_code: "MT", availability: "unknown" }),
    );
    expect(response.body.countries).toContainEqual(
      expect.objectContaining({ country_code: "GR", vies_code: "EL" }),
    );
    expect(response.headers.get("cache-control")).toBe("public, max-age=60");
    harness.clock.advance(45_000);
    const again = await harness.request<{ cached: boolean }>("GET", "/status");
    expect(again.body.cached).toBe(true);
    expect(again.headers.get("cache-control")).toBe("public, max-age=15");
    expect(harness.vies.calls.status).toBe(1);
  });

  test("VIES_PROTOCOL=rest: every check through the REST door, the same answer", async () => {
    const local = await startHarness({ env: { VIES_PROTOCOL: "rest" } });
    try {
      const { secret } = await local.createKey("pro");
      local.vies.setBehaviour("*", { kind: "html", status: 503 }, { door: "soap" });
      const response = await local.validate<ValidateResponse>(secret, { vat: "NL854265259B01" });
      expect({ status: response.status, vat: response.body.vat }).toMatchObject({
        status: 200,
        vat: {
          valid: true,
          name: "GITHUB B.V.",
          address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM",
          source: "vies",
        },
      });
      expect(local.vies.calls.byDoor).toEqual({ soap: 0, rest: 1 });
    } finally {
      await local.close();
    }
  });

  test("an unreachable status endpoint → 503 service_unavailable", async () => {
    const local = await startHarness();
    try {
      local.vies.setStatus({ kind: "html", status: 503 });
      const response = await local.request("GET", "/status");
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ error: { code: "service_unavailable" } });
    } finally {
      await local.close();
    }
  });
});
