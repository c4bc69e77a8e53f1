import { describe, expect, test } from "bun:test";
import { checkVatFormat } from "../../src/vat/format/check-vat-format.ts";
import corpus from "../fixtures/vat-numbers.json";
import { freshVatResult } from "../support/vat-results.ts";
import { serviceHarnesses, UK_VRN } from "./service-harness.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

const harness = serviceHarnesses();

// Every input of the held-out corpus, sorted by what the format check says of it: the service's
// job is to honour that verdict, not to repeat the format check's own tests.
const corpusInputs = [...corpus.valid_format, ...corpus.invalid_format, ...corpus.edge_cases].map(
  ({ input }) => input,
);
const rejectedInputs = corpusInputs.filter((input) => !checkVatFormat(input).ok);
const viesInputs = corpusInputs.filter((input) => {
  const format = checkVatFormat(input);
  return format.ok && format.prefix !== "GB";
});

describe("VAT service: local rejection", () => {
  test("every corpus input the format check rejects is answered locally, never sent upstream", async () => {
    const h = await harness({ ukEnabled: true });
    expect(rejectedInputs.length).toBeGreaterThan(800);
    for (const input of rejectedInputs) {
      const format = checkVatFormat(input);
      if (format.ok) throw new Error("unreachable: filtered above");
      const { result, fresh, phase } = await h.check(input);
      expect({ input, result, fresh, phase }).toEqual({
        input,
        result: {
          input,
          valid: false,
          vat_number: null,
          country_code: format.countryCode,
          country_name: format.countryName,
          name: null,
          address: null,
          source: "syntax",
          cached: false,
          stale: false,
          checked_at: null,
          consultation_number: null,
          error: { code: format.code, message: format.message },
          warning: null,
          match: null,
        },
        fresh: false,
        phase: "plan",
      });
    }
    expect(h.vies.calls.total).toBe(0);
    expect(h.hmrc?.calls.lookup).toBe(0);
  });

  test("an unknown prefix is invalid_country with no country; a known one keeps its country", async () => {
    const h = await harness();
    const unknown = (await h.check("XX123456789")).result;
    expect([unknown.error?.code, unknown.country_code, unknown.country_name]).toEqual([
      "invalid_country",
      null,
      null,
    ]);
    const wrongLength = (await h.check("DE12345678")).result;
    expect([wrongLength.error?.code, wrongLength.country_code, wrongLength.country_name]).toEqual([
      "invalid_format",
      "DE",
      "Germany",
    ]);
    expect(h.vies.calls.total).toBe(0);
  });
});

describe("VAT service: VIES verdicts", () => {
  test("every EU and XI corpus input the format check accepts reaches VIES once, which takes it as input", async () => {
    const h = await harness();
    h.vies.setRegistry({});
    expect(viesInputs.length).toBeGreaterThan(2500);
    const seen = new Set<string>();
    for (const input of viesInputs) {
      const format = checkVatFormat(input);
      if (!format.ok) throw new Error("unreachable: filtered above");
      const { result, fresh, phase } = await h.check(input);
      const first = !seen.has(format.vatNumber);
      seen.add(format.vatNumber);
      // Unregistered at the fake: a definitive "not registered" (never INVALID_INPUT), then a cache hit.
      expect({ input, result, fresh, phase }).toMatchObject({
        input,
        result: {
          valid: false,
          vat_number: format.vatNumber,
          country_code: format.countryCode,
          country_name: format.countryName,
          source: "vies",
          cached: !first,
          error: null,
        },
        fresh: first,
        phase: first ? "resolve" : "plan",
      });
    }
    expect(h.vies.calls.total).toBe(seen.size);
  });

  test("a registered number: the full result, fresh and billable", async () => {
    const h = await harness();
    const { result, fresh, retryAfterSeconds, upstream } = await h.check("nl 854265259 b01");
    expect(result).toEqual(
      freshVatResult({ input: "nl 854265259 b01", checked_at: new Date(h.clock.now()).toISOString() }),
    );
    expect({ fresh, retryAfterSeconds, attempts: upstream.attempts, detail: upstream.detail }).toEqual({
      fresh: true,
      retryAfterSeconds: null,
      attempts: 1,
      detail: null,
    });
  });

  test("DE and ES valid numbers come back without name and address", async () => {
    const h = await harness();
    for (const input of ["DE811569869", "ESB83891812"]) {
      const { result } = await h.check(input);
      expect([result.valid, result.name, result.address]).toEqual([true, null, null]);
    }
  });

  test("GR and EL share one cache entry; both report Greece as GR and send EL to VIES", async () => {
    const h = await harness();
    h.vies.addNumber("EL", "094259216", { valid: true, name: "HELLENIC CO", address: "ATHENS" });
    const first = await h.check("GR094259216");
    const second = await h.check("EL 094 259 216");
    expect(first.result).toMatchObject({
      vat_number: "EL094259216",
      country_code: "GR",
      country_name: "Greece",
    });
    expect(second.result).toMatchObject({ vat_number: "EL094259216", country_code: "GR", cached: true });
    expect([first.fresh, second.fresh, second.phase]).toEqual([true, false, "plan"]);
    expect(h.vies.calls.log.map(({ countryCode }) => countryCode)).toEqual(["EL"]);
  });

  test("XI goes to VIES as XI and reports country GB, even with the UK service enabled", async () => {
    const h = await harness({ ukEnabled: true });
    h.vies.addNumber("XI", UK_VRN, { valid: true, name: "NI TRADING LTD", address: "BELFAST" });
    const { result } = await h.check(`XI${UK_VRN}`);
    expect(result).toMatchObject({
      valid: true,
      vat_number: `XI${UK_VRN}`,
      country_code: "GB",
      country_name: "United Kingdom (Northern Ireland)",
      source: "vies",
    });
    expect(h.vies.calls.byCountry).toEqual({ XI: 1 });
    expect(h.hmrc?.calls.lookup).toBe(0);
  });

  test("a consultation number is returned when a requester is configured, and again from the cache", async () => {
    const h = await harness({ requesterVat: "IE6388047V" });
    const fresh = (await h.check("NL854265259B01")).result;
    expect(fresh.consultation_number).toMatch(/^WAPI[A-Za-z0-9]{12}$/);
    h.clock.advance(HOUR);
    const cached = (await h.check("NL854265259B01")).result;
    expect([cached.cached, cached.consultation_number, cached.checked_at]).toEqual([
      true,
      fresh.consultation_number,
      fresh.checked_at,
    ]);
  });
});

describe("VAT service: caching", () => {
  test("a fresh hit is answered at planning time with the original checked_at, and is not billable", async () => {
    const h = await harness();
    const first = await h.check("BE0244142664");
    h.clock.advance(23 * HOUR);
    const again = await h.check("BE 0244.142.664");
    expect(again).toMatchObject({ phase: "plan", fresh: false });
    expect(again.result).toEqual({
      ...first.result,
      input: "BE 0244.142.664",
      cached: true,
    });
    expect(h.vies.calls.total).toBe(1);
  });

  test("after 24 hours the number is checked again; the new verdict restarts freshness", async () => {
    const h = await harness();
    await h.check("IE6388047V");
    h.clock.advance(DAY);
    const renewed = await h.check("IE6388047V");
    expect([renewed.phase, renewed.fresh, renewed.result.cached]).toEqual(["resolve", true, false]);
    expect(renewed.result.checked_at).toBe(new Date(h.clock.now()).toISOString());
    h.clock.advance(DAY - 1);
    expect((await h.check("IE6388047V")).phase).toBe("plan");
    expect(h.vies.calls.total).toBe(2);
  });

  test("freshness periods are configurable", async () => {
    const h = await harness({ freshTtlSeconds: 60, lkgTtlSeconds: 120 });
    await h.check("LU20260743");
    h.clock.advance(59_999);
    expect((await h.check("LU20260743")).phase).toBe("plan");
    h.clock.advance(1);
    expect((await h.check("LU20260743")).phase).toBe("resolve");
  });

  test("a 'not registered' verdict is cached like any verdict: fresh for 24 hours, then asked again", async () => {
    const h = await harness();
    const first = await h.check("FR40303265045");
    expect([first.result.valid, first.fresh]).toEqual([false, true]);
    h.clock.advance(DAY - 1);
    const cached = await h.check("FR40303265045");
    expect([cached.phase, cached.result.valid, cached.result.cached]).toEqual(["plan", false, true]);
    h.clock.advance(1);
    h.vies.addNumber("FR", "40303265045", { valid: true, name: "NEWLY REGISTERED SA", address: "PARIS" });
    const renewed = await h.check("FR40303265045");
    expect([renewed.phase, renewed.result.valid, renewed.result.name]).toEqual([
      "resolve",
      true,
      "NEWLY REGISTERED SA",
    ]);
    expect(h.vies.calls.total).toBe(2);
  });
});

describe("VAT service: UK numbers", () => {
  test("GB is service_unavailable while the UK check is off: not billable, no upstream call", async () => {
    const h = await harness();
    const { result, fresh, phase } = await h.check(`GB ${UK_VRN}`);
    expect(result).toMatchObject({
      input: `GB ${UK_VRN}`,
      valid: null,
      vat_number: `GB${UK_VRN}`,
      country_code: "GB",
      country_name: "United Kingdom",
      source: null,
      cached: false,
      stale: false,
      error: { code: "service_unavailable" },
    });
    expect([fresh, phase]).toEqual([false, "plan"]);
    expect(h.vies.calls.total).toBe(0);
  });

  test("a malformed GB number is still rejected as a format error while the UK check is off", async () => {
    const h = await harness();
    const { result } = await h.check("GB802311781");
    expect([result.valid, result.source, result.error?.code]).toEqual([false, "syntax", "invalid_format"]);
  });

  test("GB goes to the UK service when enabled: source uk_authority, cached and fresh like VIES", async () => {
    const h = await harness({ ukEnabled: true });
    const first = await h.check(`GB${UK_VRN}`);
    expect(first.result).toMatchObject({
      valid: true,
      vat_number: `GB${UK_VRN}`,
      country_code: "GB",
      name: "UK TRADING LTD",
      address: "1 HIGH STREET\nLEEDS\nLS1 1AA",
      source: "uk_authority",
      cached: false,
      checked_at: new Date(h.clock.now()).toISOString(),
    });
    expect(first.fresh).toBe(true);
    const again = await h.check(`gb ${UK_VRN}`);
    expect([again.phase, again.result.cached, again.result.source]).toEqual(["plan", true, "uk_authority"]);
    expect(h.hmrc?.calls.lookup).toBe(1);
    expect(h.vies.calls.total).toBe(0);
  });

  test("a GB number HMRC has not registered is a definitive valid false", async () => {
    const h = await harness({ ukEnabled: true });
    const { result, fresh } = await h.check("GB100000034");
    expect([result.valid, result.source, result.error, fresh]).toEqual([false, "uk_authority", null, true]);
  });

  test("GD and HA numbers, which HMRC cannot check, are service_unavailable without a call", async () => {
    const h = await harness({ ukEnabled: true });
    for (const input of ["GBGD001", "GBHA599", "GBGD888800404"]) {
      expect(checkVatFormat(input).ok).toBe(true);
      const { result, fresh, phase } = await h.check(input);
      expect({ input, valid: result.valid, code: result.error?.code, fresh, phase }).toEqual({
        input,
        valid: null,
        code: "service_unavailable",
        fresh: false,
        phase: "plan",
      });
    }
    expect(h.hmrc?.calls.lookup).toBe(0);
  });
});
