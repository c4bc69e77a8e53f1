import { describe, expect, test } from "bun:test";
import { backoffDelayMs, DEFAULT_RETRY_POLICY } from "../../src/vat/upstream-call.ts";
import type { ViesBehaviour } from "../fakes/vies.ts";
import { SLACK_MS, timed } from "../store/timing.ts";
import { serviceHarnesses, UK_VRN } from "./service-harness.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

const harness = serviceHarnesses();

const faultOf = (fault: string): ViesBehaviour => ({ kind: "fault", fault });

/**
 * Every outage shape of both doors, what it must be answered with, and how many calls the retry
 * policy makes; a failure of the SOAP door itself is asked again through REST (`doors: 2`).
 */
const OUTAGES: Array<{ name: string; behaviour: ViesBehaviour; code: string; attempts: number; doors?: 2 }> =
  [
    {
      name: "MS_UNAVAILABLE",
      behaviour: faultOf("MS_UNAVAILABLE"),
      code: "member_state_unavailable",
      attempts: 1,
    },
    { name: "TIMEOUT", behaviour: faultOf("TIMEOUT"), code: "member_state_unavailable", attempts: 3 },
    {
      name: "SERVICE_UNAVAILABLE",
      behaviour: faultOf("SERVICE_UNAVAILABLE"),
      code: "service_unavailable",
      attempts: 3,
    },
    {
      name: "MS_MAX_CONCURRENT_REQ",
      behaviour: faultOf("MS_MAX_CONCURRENT_REQ"),
      code: "upstream_rate_limited",
      attempts: 3,
    },
    {
      name: "GLOBAL_MAX_CONCURRENT_REQ",
      behaviour: faultOf("GLOBAL_MAX_CONCURRENT_REQ"),
      code: "upstream_rate_limited",
      attempts: 3,
    },
    { name: "IP_BLOCKED", behaviour: faultOf("IP_BLOCKED"), code: "service_unavailable", attempts: 1 },
    { name: "VAT_BLOCKED", behaviour: faultOf("VAT_BLOCKED"), code: "service_unavailable", attempts: 1 },
    {
      name: "an unknown fault",
      behaviour: faultOf("SOMETHING_NEW"),
      code: "service_unavailable",
      attempts: 1,
    },
    {
      name: "an HTML 503 page",
      behaviour: { kind: "html", status: 503 },
      code: "service_unavailable",
      attempts: 1,
      doors: 2,
    },
    {
      name: "a connection reset",
      behaviour: { kind: "reset" },
      code: "service_unavailable",
      attempts: 3,
      doors: 2,
    },
    {
      name: "bytes that are not HTTP",
      behaviour: { kind: "garbage" },
      code: "service_unavailable",
      attempts: 3,
      doors: 2,
    },
  ];

describe("VAT service: upstream faults with nothing cached", () => {
  for (const { name, behaviour, code, attempts, doors = 1 } of OUTAGES) {
    test(`${name} → ${code}, valid null, not billable, not cached`, async () => {
      const h = await harness();
      h.vies.setBehaviour("NL", behaviour);
      const { result, fresh, retryAfterSeconds, upstream } = await h.check("NL854265259B01");
      expect(result).toMatchObject({
        valid: null,
        vat_number: "NL854265259B01",
        country_code: "NL",
        country_name: "Netherlands",
        source: null,
        cached: false,
        stale: false,
        checked_at: null,
        warning: null,
        error: { code },
      });
      expect([fresh, retryAfterSeconds, upstream.attempts]).toEqual([false, 60, attempts]);
      expect(h.vies.calls.total).toBe(attempts * doors);
      expect(upstream.path).toBe(doors === 2 ? "rest" : "soap");
      // Nothing was cached: once VIES is back the number is asked again.
      h.vies.clearBehaviour("NL");
      const recovered = await h.check("NL854265259B01");
      expect([recovered.phase, recovered.result.valid, recovered.fresh]).toEqual(["resolve", true, true]);
    });
  }

  test("the Retry-After hint is configurable", async () => {
    const h = await harness({ retryAfterSeconds: 300 });
    h.vies.setBehaviour("DE", faultOf("MS_UNAVAILABLE"));
    expect((await h.check("DE811569869")).retryAfterSeconds).toBe(300);
  });

  test("the error names the member state", async () => {
    const h = await harness();
    h.vies.setBehaviour("DE", faultOf("MS_UNAVAILABLE"));
    const { result } = await h.check("DE811569869");
    expect(result.error?.message).toContain("Germany");
  });

  test("faults are logged with their raw cause", async () => {
    const h = await harness();
    h.vies.setBehaviour("DE", faultOf("MS_UNAVAILABLE"));
    await h.check("DE811569869");
    expect(h.logged().filter((line) => line.event === "vat_upstream_fault")).toMatchObject([
      {
        level: "warn",
        prefix: "DE",
        code: "member_state_unavailable",
        detail: "MS_UNAVAILABLE",
        attempts: 1,
      },
    ]);
  });
});

describe("VAT service: one VIES door down while the other works", () => {
  test("the SOAP door down: a fresh answer through REST, as any fresh answer", async () => {
    const h = await harness();
    h.vies.setBehaviour("*", { kind: "html", status: 503 }, { door: "soap" });
    const { result, fresh, upstream } = await h.check("NL854265259B01");
    expect({
      valid: result.valid,
      name: result.name,
      cached: result.cached,
      fresh,
      path: upstream.path,
    }).toEqual({
      valid: true,
      name: "GITHUB B.V.",
      cached: false,
      fresh: true,
      path: "rest",
    });
    expect((await h.check("NL854265259B01")).phase).toBe("plan");
  });

  test("the REST door down: SOAP answers and REST is never asked", async () => {
    const h = await harness();
    h.vies.setBehaviour("*", { kind: "reset" }, { door: "rest" });
    const { result, upstream } = await h.check("BE0244142664");
    expect([result.valid, upstream.path, h.vies.calls.byDoor.rest]).toEqual([true, "soap", 0]);
  });

  test("the same VatResult, whichever door answered", async () => {
    const through = async (door: "soap" | "rest") => {
      const h = await harness({ requesterVat: "DE136695976" });
      h.vies.setBehaviour("*", { kind: "reset" }, { door: door === "soap" ? "rest" : "soap" });
      const { result } = await h.check("NL854265259B01", { name: "GitHub BV", city: "Amsterdam" });
      return { ...result, consultation_number: result.consultation_number?.slice(0, 4) };
    };
    expect(await through("rest")).toEqual(await through("soap"));
  });
});

describe("VAT service: last-known-good during an outage", () => {
  test("a stale copy is served with the original checked_at and a warning, not billable", async () => {
    const h = await harness();
    const original = await h.check("IE6388047V");
    h.clock.advance(3 * DAY);
    h.vies.setBehaviour("IE", faultOf("MS_UNAVAILABLE"));
    const { result, fresh, retryAfterSeconds, phase } = await h.check("IE 6388047 V");
    expect(phase).toBe("resolve");
    expect(result).toEqual({
      ...original.result,
      input: "IE 6388047 V",
      cached: true,
      stale: true,
      warning: {
        code: "member_state_unavailable",
        message: expect.stringContaining(original.result.checked_at ?? "missing"),
      },
    });
    expect([fresh, retryAfterSeconds, result.error]).toEqual([false, null, null]);
  });

  test("each fault code becomes the warning's code", async () => {
    for (const [fault, code] of [
      ["SERVICE_UNAVAILABLE", "service_unavailable"],
      ["MS_MAX_CONCURRENT_REQ", "upstream_rate_limited"],
      ["TIMEOUT", "member_state_unavailable"],
    ] as const) {
      const h = await harness();
      await h.check("LU20260743");
      h.clock.advance(DAY);
      h.vies.setBehaviour("LU", faultOf(fault));
      const { result } = await h.check("LU20260743");
      expect([fault, result.stale, result.valid, result.warning?.code]).toEqual([fault, true, true, code]);
    }
  });

  test("a slow authority: the copy is served after staleAfterMs, and the call goes on to refresh the cache", async () => {
    const h = await harness({ staleAfterMs: 300, deadlineMs: 4000, attemptTimeoutMs: 3000 });
    const original = await h.check("IE6388047V");
    h.clock.advance(DAY);
    h.vies.setLatency({ IE: 1000 });
    const started = performance.now();
    const { result, fresh } = await h.check("IE6388047V");
    expect(performance.now() - started).toBeLessThan(300 + SLACK_MS);
    expect([result.stale, result.valid, result.warning?.code, fresh]).toEqual([
      true,
      true,
      "member_state_unavailable",
      false,
    ]);
    expect(result.checked_at).toBe(original.result.checked_at);
    await Bun.sleep(1000);
    const after = await h.check("IE6388047V");
    expect([after.phase, after.result.cached, after.result.stale]).toEqual(["plan", true, false]);
    expect(after.result.checked_at).not.toBe(original.result.checked_at);
    expect(h.vies.calls.total).toBe(2);
  });

  test("a stale copy is replaced by the fresh verdict once VIES answers again", async () => {
    const h = await harness();
    await h.check("BE0244142664");
    h.clock.advance(DAY);
    const renewed = await h.check("BE0244142664");
    expect([renewed.result.stale, renewed.result.cached, renewed.fresh]).toEqual([false, false, true]);
    expect(renewed.result.checked_at).toBe(new Date(h.clock.now()).toISOString());
  });

  test("the last-known-good copy is gone 30 days after the check", async () => {
    const h = await harness();
    await h.check("IE6388047V");
    h.clock.advance(30 * DAY - 1);
    h.vies.setBehaviour("IE", faultOf("MS_UNAVAILABLE"));
    expect((await h.check("IE6388047V")).result.stale).toBe(true);
    h.clock.advance(1);
    const { result } = await h.check("IE6388047V");
    expect([result.valid, result.stale, result.error?.code]).toEqual([
      null,
      false,
      "member_state_unavailable",
    ]);
  });

  test("a 'not registered' verdict is served stale as confirmed, flagged, with its original checked_at", async () => {
    const h = await harness();
    const unregistered = await h.check("FR40303265045");
    expect(unregistered.result.valid).toBe(false);
    h.clock.advance(2 * DAY);
    h.vies.setBehaviour("FR", faultOf("MS_UNAVAILABLE"));
    const { result, fresh } = await h.check("FR40303265045");
    expect([result.valid, result.cached, result.stale, result.error, result.warning?.code, fresh]).toEqual([
      false,
      true,
      true,
      null,
      "member_state_unavailable",
      false,
    ]);
    expect(result.checked_at).toBe(unregistered.result.checked_at);
  });
});

describe("VAT service: the upstream refusing a well-formed number", () => {
  test("VIES INVALID_INPUT → valid null (a fault is never a verdict), invalid_format, source vies; not billed, not cached, logged", async () => {
    const h = await harness();
    h.vies.setBehaviour("NL", faultOf("INVALID_INPUT"));
    const { result, fresh, retryAfterSeconds } = await h.check("NL854265259B01");
    expect(result).toMatchObject({
      valid: null,
      source: "vies",
      cached: false,
      error: { code: "invalid_format" },
      warning: null,
    });
    expect([fresh, retryAfterSeconds, h.vies.calls.total]).toEqual([false, null, 1]);
    expect(h.logged().filter((line) => line.event === "vat_upstream_refused_input")).toHaveLength(1);
    h.vies.clearBehaviour("NL");
    expect((await h.check("NL854265259B01")).result.valid).toBe(true);
  });

  test("INVALID_INPUT does not fall back to a stale copy: it is not an outage", async () => {
    const h = await harness();
    await h.check("NL854265259B01");
    h.clock.advance(DAY);
    h.vies.setBehaviour("NL", faultOf("INVALID_INPUT"));
    const { result } = await h.check("NL854265259B01");
    expect([result.valid, result.stale, result.error?.code]).toEqual([null, false, "invalid_format"]);
  });
});

describe("VAT service: UK faults", () => {
  test("throttling is retried, then answered upstream_rate_limited", async () => {
    const h = await harness({ ukEnabled: true });
    h.hmrc?.setBehaviour("lookup", "throttled");
    const { result, upstream } = await h.check(`GB${UK_VRN}`);
    expect([result.valid, result.error?.code, upstream.attempts]).toEqual([null, "upstream_rate_limited", 3]);
  });

  test("an erroring UK service is service_unavailable; a stale copy is served when there is one", async () => {
    const h = await harness({ ukEnabled: true });
    await h.check(`GB${UK_VRN}`);
    h.clock.advance(DAY);
    h.hmrc?.setBehaviour("lookup", "internal_error");
    const stale = (await h.check(`GB${UK_VRN}`)).result;
    expect([stale.valid, stale.stale, stale.source, stale.warning?.code]).toEqual([
      true,
      true,
      "uk_authority",
      "service_unavailable",
    ]);
  });
});

describe("VAT service: bounded time", () => {
  const DEADLINE_MS = 600;

  test("a hanging VIES: the answer comes by the deadline, as member_state_unavailable", async () => {
    const h = await harness({ deadlineMs: DEADLINE_MS });
    h.vies.setBehaviour("DE", { kind: "hang" });
    const { error, ms } = await timed(async () => {
      const { result, upstream } = await h.check("DE811569869");
      expect([result.valid, result.error?.code, upstream.detail]).toEqual([
        null,
        "member_state_unavailable",
        "CLIENT_TIMEOUT",
      ]);
    });
    expect(error).toBeUndefined();
    expect(ms).toBeLessThan(DEADLINE_MS + SLACK_MS);
  });

  test("headers then no body: bounded the same way, a stale copy served when there is one", async () => {
    const h = await harness({ deadlineMs: DEADLINE_MS });
    await h.check("DE811569869");
    h.clock.advance(DAY);
    h.vies.setBehaviour("DE", { kind: "stall" });
    const started = performance.now();
    const { result } = await h.check("DE811569869");
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS + SLACK_MS);
    expect([result.valid, result.stale, result.warning?.code]).toEqual([
      true,
      true,
      "member_state_unavailable",
    ]);
  });

  test("the deadline counts from planning: time spent between plan and resolve is not given twice", async () => {
    const h = await harness({ deadlineMs: DEADLINE_MS });
    h.vies.setBehaviour("DE", { kind: "hang" });
    const started = performance.now();
    const plan = await h.service.plan("DE811569869");
    if (plan.kind !== "upstream") throw new Error("expected upstream work");
    await Bun.sleep(300);
    await h.service.resolve(plan);
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS + SLACK_MS);
  });

  test("a hanging UK service: bounded too, as service_unavailable", async () => {
    const h = await harness({ deadlineMs: DEADLINE_MS, ukEnabled: true });
    h.hmrc?.setBehaviour("lookup", "hang");
    const started = performance.now();
    const { result } = await h.check(`GB${UK_VRN}`);
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS + SLACK_MS);
    expect([result.valid, result.error?.code]).toEqual([null, "service_unavailable"]);
  });

  test("callers joining a hanging call are bounded by their own deadline", async () => {
    const h = await harness({ deadlineMs: DEADLINE_MS });
    h.vies.setBehaviour("DE", { kind: "hang" });
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 10 }, () => h.check("DE811569869")));
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS + SLACK_MS);
    expect(new Set(answers.map(({ result }) => result.error?.code))).toEqual(
      new Set(["member_state_unavailable"]),
    );
    expect(h.vies.calls.total).toBe(1);
  });
});

describe("VAT service: retries", () => {
  test("backoff: an exponential ceiling, capped, with the delay between half the ceiling and the ceiling", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 350 };
    const delays = (random: number) =>
      [1, 2, 3, 4].map((retry) => backoffDelayMs(retry, policy, () => random));
    expect(delays(0)).toEqual([50, 100, 175, 175]);
    expect(delays(1)).toEqual([100, 200, 350, 350]);
    expect(delays(0.5)).toEqual([75, 150, 262.5, 262.5]);
  });

  test("throttling twice, then an answer: three calls, one fresh verdict", async () => {
    const h = await harness();
    h.vies.setBehaviour("DE", faultOf("MS_MAX_CONCURRENT_REQ"), { times: 2 });
    const { result, fresh, upstream } = await h.check("DE811569869");
    expect([result.valid, result.error, fresh, upstream.attempts]).toEqual([true, null, true, 3]);
    expect(h.vies.calls.total).toBe(3);
  });

  test("a member-state timeout once, then an answer", async () => {
    const h = await harness();
    h.vies.setBehaviour("IT", faultOf("TIMEOUT"), { times: 1 });
    h.vies.addNumber("IT", "00743110157", { valid: true, name: "ITALIA SPA", address: "ROMA" });
    const { result, upstream } = await h.check("IT00743110157");
    expect([result.valid, upstream.attempts]).toEqual([true, 2]);
  });

  test("a non-retryable fault is not retried", async () => {
    const h = await harness();
    h.vies.setBehaviour("DE", faultOf("MS_UNAVAILABLE"), { times: 1 });
    const { result, upstream } = await h.check("DE811569869");
    expect([result.error?.code, upstream.attempts, h.vies.calls.total]).toEqual([
      "member_state_unavailable",
      1,
      1,
    ]);
  });

  test("the number of attempts is configurable", async () => {
    const h = await harness({ retry: { maxAttempts: 1 } });
    h.vies.setBehaviour("DE", faultOf("MS_MAX_CONCURRENT_REQ"), { times: 1 });
    const { result } = await h.check("DE811569869");
    expect([result.error?.code, h.vies.calls.total]).toEqual(["upstream_rate_limited", 1]);
  });

  test("no retry is started that the budget cannot carry", async () => {
    const h = await harness({
      deadlineMs: 300,
      retry: { baseDelayMs: 400, maxDelayMs: 400, minAttemptMs: 50 },
    });
    h.vies.setBehaviour("DE", faultOf("MS_MAX_CONCURRENT_REQ"), { times: 1 });
    const started = performance.now();
    const { result } = await h.check("DE811569869");
    expect(performance.now() - started).toBeLessThan(300);
    expect([result.error?.code, h.vies.calls.total]).toEqual(["upstream_rate_limited", 1]);
  });
});

describe("VAT service: VIES status awareness", () => {
  test("a member state VIES reports unavailable fails fast, without a call, with a Retry-After hint", async () => {
    const h = await harness();
    expect((await h.reportStatus({ kind: "json", countries: { DE: "Unavailable" } })).ok).toBe(true);
    const { result, retryAfterSeconds, upstream } = await h.check("DE811569869");
    expect([result.valid, result.error?.code, retryAfterSeconds, upstream.detail]).toEqual([
      null,
      "member_state_unavailable",
      60,
      "STATUS_UNAVAILABLE",
    ]);
    expect(h.vies.calls.total).toBe(0);
  });

  test("VIES reporting itself down fails every state fast as service_unavailable", async () => {
    const h = await harness();
    await h.reportStatus({ kind: "json", vowAvailable: false });
    const { result, upstream } = await h.check("NL854265259B01");
    expect([result.valid, result.error?.code, upstream.detail]).toEqual([
      null,
      "service_unavailable",
      "STATUS_VIES_UNAVAILABLE",
    ]);
    expect(h.vies.calls.total).toBe(0);
  });

  test("... and serves the last-known-good copy when there is one", async () => {
    const h = await harness();
    await h.check("DE811569869");
    h.clock.advance(DAY);
    await h.reportStatus({ kind: "json", countries: { DE: "Unavailable" } });
    const { result } = await h.check("DE811569869");
    expect([result.valid, result.stale, result.warning?.code]).toEqual([
      true,
      true,
      "member_state_unavailable",
    ]);
    expect(h.vies.calls.total).toBe(1);
  });

  test("other member states are called as usual", async () => {
    const h = await harness();
    await h.reportStatus({ kind: "json", countries: { DE: "Unavailable" } });
    expect((await h.check("NL854265259B01")).result.valid).toBe(true);
  });

  test("Monitoring Disabled means unknown: the member state is called", async () => {
    const h = await harness();
    await h.reportStatus({ kind: "json", countries: { DE: "Monitoring Disabled" } });
    expect((await h.check("DE811569869")).result.valid).toBe(true);
  });

  test("a status older than its TTL is not trusted: the member state is called", async () => {
    const h = await harness();
    await h.reportStatus({ kind: "json", countries: { DE: "Unavailable" } });
    h.clock.advance(60_000);
    h.vies.setStatus({ kind: "hang" });
    expect((await h.check("DE811569869")).result.valid).toBe(true);
    expect(h.vies.calls.total).toBe(1);
  });

  test("an unreachable status endpoint changes nothing", async () => {
    const h = await harness();
    expect((await h.reportStatus({ kind: "html", status: 503 })).ok).toBe(false);
    expect((await h.check("DE811569869")).result.valid).toBe(true);
  });
});
