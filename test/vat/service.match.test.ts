import { describe, expect, test } from "bun:test";
import type { MatchRequest, MatchResult } from "../../src/matching/schema.ts";
import { serviceHarnesses } from "./service-harness.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

const harness = serviceHarnesses();

const GITHUB = "NL854265259B01";
const RODRISA = "ESB83891812";
const local = (result: "match" | "mismatch") => ({ result, by: "local" }) as const;
const nobody = { result: "not_processed", by: null } as const;
const authority = (result: "match" | "mismatch") => ({ result, by: "authority" }) as const;
/** A match result as the service gives it (typed, for comparing). */
const matched = (result: MatchResult) => result;

describe("VAT service: matching against the disclosed record", () => {
  test("a fresh answer is matched; the cached answer after it the same way, without a call", async () => {
    const h = await harness();
    const match: MatchRequest = {
      name: "GitHub BV",
      street: "Vijzelstr. 68",
      postcode: "1017 HL",
      city: "Rotterdam",
    };
    const fresh = await h.check(GITHUB, match);
    expect({ phase: fresh.phase, fresh: fresh.fresh, match: fresh.result.match }).toEqual({
      phase: "resolve",
      fresh: true,
      match: {
        overall: "partial",
        name: local("match"),
        street: local("match"),
        postcode: local("match"),
        city: local("mismatch"),
      },
    });
    h.clock.advance(HOUR);
    const cached = await h.check(GITHUB, match);
    expect({ phase: cached.phase, fresh: cached.fresh, cached: cached.result.cached }).toEqual({
      phase: "plan",
      fresh: false,
      cached: true,
    });
    expect(cached.result.match).toEqual(fresh.result.match);
    expect(h.vies.calls.total).toBe(1);
    // Without `match`, the same answer has none.
    expect((await h.check(GITHUB)).result.match).toBeNull();
  });

  test("a stale copy served during an outage is matched against that copy", async () => {
    const h = await harness();
    await h.check(GITHUB);
    h.clock.advance(2 * DAY);
    h.vies.setBehaviour("NL", { kind: "fault", fault: "MS_UNAVAILABLE" });
    const { result } = await h.check(GITHUB, { name: "GITHUB" });
    expect({ stale: result.stale, match: result.match }).toEqual({
      stale: true,
      match: matched({ overall: "match", name: local("match") }),
    });
  });

  test("nothing to compare: Germany discloses nothing, an unregistered number has no record, a malformed one was never checked, an outage gave nothing", async () => {
    const h = await harness();
    const match = { name: "Acme", city: "Berlin" };
    const none = matched({ overall: "not_processed", name: nobody, city: nobody });
    expect((await h.check("DE811569869", match)).result).toMatchObject({ valid: true, match: none });
    expect((await h.check("NL999999999B01", match)).result).toMatchObject({ valid: false, match: none });
    expect((await h.check("NL123", match)).result).toMatchObject({ source: "syntax", match: none });
    h.vies.setBehaviour("BE", { kind: "fault", fault: "MS_UNAVAILABLE" });
    expect((await h.check("BE0244142664", match)).result).toMatchObject({ valid: null, match: none });
  });
});

describe("VAT service: Spain, which compares trader details itself", () => {
  test("a match request goes past a fresh cache to the member state: a fresh answer with its codes", async () => {
    const h = await harness();
    await h.check(RODRISA);
    const plan = await h.service.plan(RODRISA, { name: "Rodrisa Automoviles" });
    expect(plan).toMatchObject({ kind: "upstream", freshCopy: { cached: true } });
    const match = {
      name: "Rodrisa Automoviles",
      street: "Avda. Reina Victoria",
      postcode: "28430",
      city: "Madrid",
    };
    const { fresh, result } = await h.check(RODRISA, match);
    expect({ fresh, cached: result.cached, calls: h.vies.calls.total }).toEqual({
      fresh: true,
      cached: false,
      calls: 2,
    });
    // The published sample's answer: the city is Alcorcón's postcode, not Madrid's.
    expect(result.match).toEqual(
      matched({
        overall: "partial",
        name: authority("match"),
        street: authority("match"),
        postcode: authority("match"),
        city: authority("mismatch"),
      }),
    );
    // Spain discloses nothing, the name it hands back included.
    expect({ name: result.name, address: result.address }).toEqual({ name: null, address: null });
  });

  test("the codes are not cached: the next plain request is answered from the cache, without them", async () => {
    const h = await harness();
    expect((await h.check(RODRISA, { name: "Other SL" })).result.match).toEqual(
      matched({ overall: "mismatch", name: authority("mismatch") }),
    );
    const cached = await h.check(RODRISA);
    expect({ phase: cached.phase, cached: cached.result.cached, match: cached.result.match }).toEqual({
      phase: "plan",
      cached: true,
      match: null,
    });
  });

  test("a company type in VIES's code form goes to the member state; a written-out one stays here", async () => {
    const h = await harness();
    h.vies.addNumber("ES", "B83891812", {
      valid: true,
      name: "Rodrisa Automoviles",
      trader: { companyType: "ES-2" },
    });
    const coded = await h.check(RODRISA, { name: "Rodrisa Automoviles", company_type: "ES-2" });
    expect(coded.result.match).toEqual(
      matched({ overall: "match", name: authority("match"), company_type: authority("match") }),
    );
    expect(h.vies.calls.log.at(-1)?.trader).toEqual({ name: "Rodrisa Automoviles", companyType: "ES-2" });
    await h.check(RODRISA, { name: "Rodrisa Automoviles", company_type: "S.L." });
    expect(h.vies.calls.log.at(-1)?.trader).toEqual({ name: "Rodrisa Automoviles" });
  });

  test("when that call fails, the cached answer is served, matched here and not fresh", async () => {
    const h = await harness();
    const cached = await h.check(RODRISA);
    h.vies.setBehaviour("ES", { kind: "fault", fault: "MS_UNAVAILABLE" });
    const { fresh, result, retryAfterSeconds } = await h.check(RODRISA, { name: "Rodrisa" });
    expect({ fresh, retryAfterSeconds, result }).toEqual({
      fresh: false,
      retryAfterSeconds: null,
      result: {
        ...cached.result,
        cached: true,
        match: matched({ overall: "not_processed", name: nobody }),
      },
    });
  });

  test("without details the member state takes, or without `match`, the cache answers", async () => {
    const h = await harness();
    await h.check(RODRISA);
    expect((await h.check(RODRISA)).phase).toBe("plan");
    const typeOnly = await h.check(RODRISA, { company_type: "S.L." });
    expect({ phase: typeOnly.phase, match: typeOnly.result.match }).toEqual({
      phase: "plan",
      match: matched({ overall: "not_processed", company_type: nobody }),
    });
    expect(h.vies.calls.total).toBe(1);
  });

  test("calls are shared only by requests with the same details", async () => {
    const h = await harness();
    h.vies.setLatency(150);
    const same = { name: "Rodrisa Automoviles", city: "Madrid" };
    const answers = await Promise.all([
      h.check(RODRISA, same),
      h.check(RODRISA, { ...same }),
      h.check(RODRISA, { name: "Other" }),
      h.check(RODRISA),
    ]);
    expect(answers.map((answer) => answer.upstream.shared)).toEqual([false, true, false, false]);
    expect(h.vies.calls.total).toBe(3);
  });
});
