import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createKeys } from "../support/billing-rows.ts";
import { expectBilledAsAnswered, type FaultRig, faultRigForDescribe } from "../support/fault-rig.ts";
import { seedFrom } from "../support/prng.ts";
import { awayFromMinuteEdge, validateIban } from "../support/service.ts";
import { aroundOutage, billableAnswers, contractProblems, firstArrivalAfter } from "../support/traffic.ts";

setDefaultTimeout(90_000);

const SEED = seedFrom("FAULT_SEED");
const LIMIT = 5;

/**
 * Redis killed and started again (empty) under sustained load, without touching the
 * service: VAT numbers are checked with VIES while the cache is gone, the per-minute limit
 * keeps counting in process, and the service goes back to Redis once it is there.
 */
describe.if(Boolean(process.env.DATABASE_URL))("Redis killed and restarted under load", () => {
  const startedRig = faultRigForDescribe(SEED);

  /** LIMIT + 3 requests of a new key with a per-minute limit of LIMIT, in one minute window. */
  async function burstOverLimit(rig: FaultRig): Promise<string[]> {
    const [limited] = await createKeys(rig.postgres.url, 1, { rate: LIMIT });
    await awayFromMinuteEdge(3000);
    const outcomes: string[] = [];
    for (let i = 0; i < LIMIT + 3; i++) {
      const { status, body } = await validateIban(rig.service, limited?.secret ?? "");
      outcomes.push(body.error ? `${status} ${body.error.code}` : String(status));
    }
    return outcomes;
  }
  const expectedBurst: string[] = [
    ...Array.from({ length: LIMIT }, () => "200"),
    ...Array.from({ length: 3 }, () => "429 rate_limited"),
  ];

  test("VAT falls back to VIES, the limit counts in process, and Redis is used again once back", async () => {
    const rig = startedRig();
    const pid = rig.service.pid();
    const traffic = rig.traffic({
      loops: 8,
      seed: SEED,
      weights: { iban: 4, vat_fresh: 2, vat_cached: 3, bad: 1 },
      timeoutMs: 10_000,
    });
    let killedAt = 0;
    let restartingAt = 0;
    let startedAt = 0;
    let readyWhileDown = "";
    let readyWhenBack = "";
    let burstWhileDown: string[] = [];
    let burstWhenBack: string[] = [];
    let viesCallsWhileDown = 0;
    try {
      await Bun.sleep(1500);
      killedAt = traffic.elapsed();
      await rig.redis.stop("SIGKILL");
      const viesCallsBefore = rig.vies.calls.total;
      burstWhileDown = await burstOverLimit(rig);
      readyWhileDown = await rig.ready();
      await Bun.sleep(2000);
      viesCallsWhileDown = rig.vies.calls.total - viesCallsBefore;
      restartingAt = traffic.elapsed();
      await rig.redis.start();
      startedAt = traffic.elapsed();
      await Bun.sleep(2500);
      burstWhenBack = await burstOverLimit(rig);
      readyWhenBack = await rig.ready();
      await Bun.sleep(500);
    } finally {
      await traffic.stop();
    }

    const answers = traffic.answers;
    const outage = answers.filter(
      (answer) => answer.at >= killedAt + 100 && answer.at + answer.ms < restartingAt,
    );
    const lastSecond = answers.filter((answer) => answer.at >= traffic.elapsed() - 1500);
    const billing = await rig.billing();
    const received = billableAnswers(answers);
    const windows = (await rig.redis.command(["KEYS", "*rl:*"])) as string[];
    const events = Object.fromEntries(rig.service.events);
    const cachedAgainAfterMs = firstArrivalAfter(answers, restartingAt, (answer) => answer.cached);
    console.log(
      JSON.stringify({
        cachedAgainAfterMs,
        ...aroundOutage(answers, killedAt, startedAt),
        burstWhileDown,
        burstWhenBack,
        viesCallsWhileDown,
        billing,
        received,
        events,
      }),
    );

    expect(rig.service.pid()).toBe(pid);
    // Still ready without Redis: the cache is reported, not required.
    expect(readyWhileDown).toBe("200 database=ok cache=unreachable");
    expect(readyWhenBack).toBe("200 database=ok cache=ok");
    expect(contractProblems(answers)).toEqual([]);
    // Nothing fails: no connection errors, no timeouts, no 5xx — Redis is not needed to answer.
    expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 400)).toEqual([]);
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(2000);
    // While Redis is down, numbers that were cached are checked with VIES again (and billed).
    const cachedKind = outage.filter((answer) => answer.kind === "vat_cached");
    expect(cachedKind.length).toBeGreaterThan(10);
    expect(cachedKind.filter((answer) => answer.cached)).toEqual([]);
    expect(viesCallsWhileDown).toBeGreaterThanOrEqual(cachedKind.length);
    // The per-minute limit holds while Redis is down (in process) and after (in Redis again).
    expect(burstWhileDown).toEqual(expectedBurst);
    expect(burstWhenBack).toEqual(expectedBurst);
    expect(windows.length).toBeGreaterThan(0);
    expect(events.rate_limit_store_failed).toBeGreaterThanOrEqual(1);
    expect(events.rate_limit_store_recovered).toBeGreaterThanOrEqual(1);
    // Once Redis is back, cached numbers are served from the cache again.
    expect(
      lastSecond.filter((answer) => answer.kind === "vat_cached" && answer.cached).length,
    ).toBeGreaterThan(10);
    expectBilledAsAnswered(answers, billing);
  });
});
