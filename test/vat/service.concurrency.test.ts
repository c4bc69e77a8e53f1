import { describe, expect, test } from "bun:test";
import { SLACK_MS } from "../store/timing.ts";
import { serviceHarnesses, wellFormedNumbers } from "./service-harness.ts";

const harness = serviceHarnesses();

const germanNumbers = (count: number) => wellFormedNumbers("DE", 100_000_000, count);

describe("VAT service: identical concurrent lookups", () => {
  test("100 concurrent requests for one number make exactly one upstream call, all fresh", async () => {
    const h = await harness();
    h.vies.setLatency({ NL: 100 });
    const answers = await Promise.all(Array.from({ length: 100 }, () => h.check("NL854265259B01")));
    expect(h.vies.calls.total).toBe(1);
    expect(new Set(answers.map(({ result }) => JSON.stringify(result))).size).toBe(1);
    expect(answers.every(({ result, fresh }) => result.valid === true && !result.cached && fresh)).toBe(true);
    expect(answers.filter(({ upstream }) => !upstream.shared)).toHaveLength(1);
    expect(answers.reduce((sum, { upstream }) => sum + upstream.attempts, 0)).toBe(1);
  });

  test("GR and EL spellings of one number share the call", async () => {
    const h = await harness();
    h.vies.setLatency({ EL: 100 });
    await Promise.all(["GR094259216", "EL094259216", "el 094 259 216"].map((input) => h.check(input)));
    expect(h.vies.calls.total).toBe(1);
  });

  test("a failure is shared by everyone waiting, then forgotten", async () => {
    const h = await harness();
    h.vies.setLatency({ DE: 100 });
    h.vies.setBehaviour("DE", { kind: "fault", fault: "MS_UNAVAILABLE" }, { times: 1 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => h.check("DE811569869")));
    expect(answers.map(({ result }) => result.error?.code)).toEqual(
      Array(20).fill("member_state_unavailable"),
    );
    expect(h.vies.calls.total).toBe(1);
    const next = await h.check("DE811569869");
    expect([next.result.valid, next.fresh, h.vies.calls.total]).toEqual([true, true, 2]);
  });
});

describe("VAT service: concurrency per member state", () => {
  test("a burst of distinct numbers never exceeds the limit at VIES, so VIES never throttles it", async () => {
    const h = await harness({ maxConcurrentPerState: 4 });
    h.vies.setConcurrencyLimit("DE", 4);
    h.vies.setLatency({ DE: 30 });
    const numbers = germanNumbers(40);
    const answers = await Promise.all(numbers.map((input) => h.check(input)));
    expect(answers.map(({ result }) => result.error)).toEqual(Array(40).fill(null));
    expect(answers.every(({ result }) => result.valid === false && result.source === "vies")).toBe(true);
    expect(h.vies.calls.total).toBe(40);
    expect(h.vies.calls.maxInFlight.DE).toBeLessThanOrEqual(4);
    expect(h.vies.calls.maxInFlight.DE).toBeGreaterThan(1);
  });

  test("a slow member state does not hold up the others", async () => {
    const h = await harness({ maxConcurrentPerState: 1 });
    h.vies.setLatency({ DE: 300 });
    const german = Promise.all(germanNumbers(2).map((input) => h.check(input)));
    const started = performance.now();
    expect((await h.check("NL854265259B01")).result.valid).toBe(true);
    expect(performance.now() - started).toBeLessThan(SLACK_MS);
    await german;
  });

  test("a full line is refused at once as upstream_rate_limited, without a call", async () => {
    const h = await harness({ maxConcurrentPerState: 1, maxWaitingPerState: 1 });
    h.vies.setLatency({ DE: 300 });
    const [first, second, third] = germanNumbers(3);
    const running = [h.check(first ?? ""), h.check(second ?? "")];
    const started = performance.now();
    const refused = await h.check(third ?? "");
    expect(performance.now() - started).toBeLessThan(SLACK_MS);
    expect([refused.result.valid, refused.result.error?.code, refused.retryAfterSeconds]).toEqual([
      null,
      "upstream_rate_limited",
      60,
    ]);
    expect([refused.upstream.attempts, refused.upstream.detail]).toEqual([0, "LOCAL_CONCURRENCY_LIMIT"]);
    expect((await Promise.all(running)).map(({ result }) => result.error)).toEqual([null, null]);
    expect(h.vies.calls.total).toBe(2);
  });

  test("a request that gets no slot within its budget is refused, and served stale if it can be", async () => {
    const DEADLINE_MS = 600;
    const h = await harness({ maxConcurrentPerState: 1, deadlineMs: DEADLINE_MS });
    const [waiter = "", holder = ""] = germanNumbers(2);
    h.vies.addNumber("DE", waiter.slice(2), { valid: true });
    await h.check(waiter);
    h.clock.advance(25 * 60 * 60 * 1000);
    h.vies.setBehaviour("DE", { kind: "hang" });
    // The waiter is planned first, so its budget ends before the holder's call gives up.
    const waiterPlan = await h.service.plan(waiter);
    await Bun.sleep(100);
    const holderPlan = await h.service.plan(holder);
    if (waiterPlan.kind !== "upstream" || holderPlan.kind !== "upstream")
      throw new Error("expected upstream work");
    const holding = h.service.resolve(holderPlan);
    const started = performance.now();
    const waited = await h.service.resolve(waiterPlan);
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS - 100 + SLACK_MS);
    expect([waited.result.valid, waited.result.stale, waited.result.warning?.code]).toEqual([
      true,
      true,
      "upstream_rate_limited",
    ]);
    expect(waited.upstream.attempts).toBe(0);
    expect((await holding).result.error?.code).toBe("member_state_unavailable");
    expect(h.vies.calls.total).toBe(2);
  });

  test("a slot that frees up too late for a useful attempt is not taken: no call bound to time out", async () => {
    const h = await harness({ maxConcurrentPerState: 1, deadlineMs: 1000, retry: { minAttemptMs: 500 } });
    const [first = "", second = ""] = germanNumbers(2);
    h.vies.setLatency({ DE: 700 });
    const [firstPlan, secondPlan] = await Promise.all([h.service.plan(first), h.service.plan(second)]);
    if (firstPlan.kind !== "upstream" || secondPlan.kind !== "upstream")
      throw new Error("expected upstream work");
    const started = performance.now();
    const [held, waited] = await Promise.all([h.service.resolve(firstPlan), h.service.resolve(secondPlan)]);
    expect(held.fresh).toBe(true);
    // The slot came free at ~700 ms with ~300 ms left: the second request gave up waiting at ~500 ms instead.
    expect([waited.result.error?.code, waited.upstream.detail, waited.upstream.attempts]).toEqual([
      "upstream_rate_limited",
      "LOCAL_CONCURRENCY_LIMIT",
      0,
    ]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(h.vies.calls.total).toBe(1);
  });
});
