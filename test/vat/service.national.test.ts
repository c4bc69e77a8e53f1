import { describe, expect, test } from "bun:test";
import { createPacer } from "../../src/vat/pacer.ts";
import { serviceHarnesses } from "./service-harness.ts";

const DAY = 24 * 60 * 60 * 1000;
const harness = serviceHarnesses();

const UBS = "CHE-101.329.561 MWST";
const EQUINOR = "NO 923 609 016 MVA";

describe("Swiss and Norwegian numbers: answered by their registers, like VIES's", () => {
  test("a Swiss number: fresh, then from the cache without a call", async () => {
    const h = await harness();
    const fresh = await h.check(UBS);
    expect({ fresh: fresh.fresh, result: fresh.result }).toEqual({
      fresh: true,
      result: {
        input: UBS,
        valid: true,
        vat_number: "CHE101329561",
        country_code: "CH",
        country_name: "Switzerland",
        name: "UBS AG",
        address: "Bahnhofstrasse 45\n8001 Zürich",
        source: "ch_uid",
        cached: false,
        stale: false,
        checked_at: fresh.result.checked_at,
        consultation_number: null,
        error: null,
        warning: null,
        match: null,
      },
    });
    const cached = await h.check("CHE101329561");
    expect([cached.phase, cached.result.cached, cached.result.valid, h.uid.calls.total]).toEqual([
      "plan",
      true,
      true,
      1,
    ]);
  });

  test("a Norwegian number, and the ones its register says are not registered (also cached)", async () => {
    const h = await harness();
    expect((await h.check(EQUINOR)).result).toMatchObject({
      valid: true,
      vat_number: "NO923609016",
      country_code: "NO",
      name: "EQUINOR ASA",
      address: "Forusbeen 50\n4035 STAVANGER",
      source: "no_brreg",
    });
    for (const number of ["NO988077917MVA", "NO821227062", "NO433695968"]) {
      const { result, fresh } = await h.check(number);
      expect([result.valid, result.error, fresh]).toEqual([false, null, true]);
    }
    expect((await h.check("NO433695968")).result.cached).toBe(true);
    expect(h.brreg.calls.total).toBe(4);
  });

  test("a wrong check digit is invalid_format before any call", async () => {
    const h = await harness();
    for (const input of ["CHE-101.329.562", "NO923609017MVA"]) {
      expect((await h.check(input)).result).toMatchObject({
        valid: false,
        source: "syntax",
        error: { code: "invalid_format" },
      });
    }
    expect([h.uid.calls.total, h.brreg.calls.total]).toEqual([0, 0]);
  });

  test("an outage is never `valid: false`: service_unavailable, or the last-known-good copy", async () => {
    const h = await harness();
    h.brreg.setBehaviour({ kind: "html", status: 503 });
    const down = await h.check(EQUINOR);
    expect([down.result.valid, down.result.error?.code, down.retryAfterSeconds]).toEqual([
      null,
      "service_unavailable",
      60,
    ]);
    expect(down.result.error?.message).toContain("the Norwegian Register of Legal Entities is unreachable");
    h.brreg.reset();
    await h.check(EQUINOR);
    h.clock.advance(2 * DAY);
    h.brreg.setBehaviour({ kind: "reset" });
    const stale = await h.check(EQUINOR);
    expect(stale.result).toMatchObject({
      valid: true,
      cached: true,
      stale: true,
      warning: { code: "service_unavailable" },
    });
    expect(stale.fresh).toBe(false);
  });

  test("a register that does not answer in time: service_unavailable by the deadline, never the member state", async () => {
    const h = await harness({ deadlineMs: 400 });
    h.uid.setBehaviour({ kind: "hang" });
    const { result } = await h.check(UBS);
    expect([result.valid, result.error?.code]).toEqual([null, "service_unavailable"]);
  });

  test("the UID register's Request_limit_exceeded: upstream_rate_limited", async () => {
    const h = await harness();
    h.uid.setRateLimit(0);
    const { result } = await h.check(UBS);
    expect([result.valid, result.error?.code]).toEqual([null, "upstream_rate_limited"]);
    expect(result.error?.message).toBe(
      "the Swiss UID register is throttling requests for Switzerland; try again shortly",
    );
  });

  test("concurrent requests for one number share one call", async () => {
    const h = await harness();
    h.uid.setLatency(150);
    const answers = await Promise.all([h.check(UBS), h.check("CHE101329561"), h.check("che 101 329 561")]);
    expect(answers.map(({ result }) => result.valid)).toEqual([true, true, true]);
    expect(h.uid.calls.total).toBe(1);
  });

  test("off on this deployment: service_unavailable, no call, the message naming the register", async () => {
    const h = await harness({ disabled: ["ch", "no"] });
    const swiss = await h.check(UBS);
    expect([swiss.phase, swiss.result.valid, swiss.result.source, swiss.result.error]).toEqual([
      "plan",
      null,
      null,
      {
        code: "service_unavailable",
        message:
          "Swiss VAT numbers (prefix CHE) cannot be checked: the Swiss UID register is not enabled on this deployment",
      },
    ]);
    expect((await h.check(EQUINOR)).result.error?.message).toContain("Norwegian");
    expect([h.uid.calls.total, h.brreg.calls.total]).toEqual([0, 0]);
  });

  test("matching compares the register's name and address here", async () => {
    const h = await harness();
    const { result } = await h.check(UBS, { name: "UBS", postcode: "8001", city: "Zurich" });
    expect(result.match).toEqual({
      overall: "match",
      name: { result: "match", by: "local" },
      postcode: { result: "match", by: "local" },
      city: { result: "match", by: "local" },
    });
  });
});

describe("the UID register's per-minute cap", () => {
  test("calls past the cap wait their turn within the deadline, then go", async () => {
    const h = await harness({ pacers: { CH: createPacer({ perWindow: 1, windowMs: 300 }) } });
    const started = performance.now();
    const answers = await Promise.all([h.check(UBS), h.check("CHE107185562")]);
    expect(answers.map(({ result }) => result.valid)).toEqual([true, true]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(h.uid.calls.total).toBe(2);
  });

  test("a turn beyond the deadline: upstream_rate_limited at once, without a call", async () => {
    const h = await harness({ pacers: { CH: createPacer({ perWindow: 1 }) } });
    await h.check(UBS);
    const started = performance.now();
    const { result, upstream } = await h.check("CHE107185562");
    expect([result.error?.code, upstream.detail, upstream.attempts]).toEqual([
      "upstream_rate_limited",
      "LOCAL_RATE_LIMIT",
      0,
    ]);
    expect(performance.now() - started).toBeLessThan(200);
    expect(h.uid.calls.total).toBe(1);
  });

  test("the cap is the UID register's only: Norwegian and EU numbers are not held back", async () => {
    const h = await harness({ pacers: { CH: createPacer({ perWindow: 1 }) } });
    await h.check(UBS);
    expect((await h.check(EQUINOR)).result.valid).toBe(true);
    expect((await h.check("NL854265259B01")).result.valid).toBe(true);
  });
});
