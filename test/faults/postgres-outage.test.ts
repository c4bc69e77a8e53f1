import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { expectBilledAsAnswered, faultRigForDescribe } from "../support/fault-rig.ts";
import { seedFrom } from "../support/prng.ts";
import { sweepStranded } from "../support/sweep.ts";
import { aroundOutage, billableAnswers, contractProblems, firstArrivalAfter } from "../support/traffic.ts";

setDefaultTimeout(90_000);

const SEED = seedFrom("FAULT_SEED");
const OUTAGE_MS = 3000;
/** Longer than KEY_CACHE_TTL_MS (1 s): by then key lookups fail too, not only the meter. */
const RECOVERY_MS = 8000;
/** How long the load runs once the service is ready again. */
const SETTLED_MS = 2000;

/**
 * Postgres stopped (`pg_ctl stop -m fast`: sessions terminated, open transactions rolled
 * back) and started again under sustained load, without touching the service: requests
 * fail cleanly and fast with 503 `service_unavailable` while it is down, nothing is billed
 * that the client was not told about, and the service recovers by itself.
 */
describe.if(Boolean(process.env.DATABASE_URL))("Postgres stopped and restarted under load", () => {
  const startedRig = faultRigForDescribe(SEED);

  test("503 while down, never 500 or a hang; recovers alone; billing matches the answers", async () => {
    const rig = startedRig();
    const pid = rig.service.pid();
    const traffic = rig.traffic({
      loops: 8,
      seed: SEED,
      weights: { iban: 5, vat_fresh: 2, vat_cached: 2, bad: 1 },
      timeoutMs: 10_000,
    });
    let stoppedAt = 0;
    let restartingAt = 0;
    let readyWhileDown = "";
    let readyWhenBack = "";
    let readyAt = 0;
    let startedAt = 0;
    try {
      await Bun.sleep(1500);
      stoppedAt = traffic.elapsed();
      await rig.postgres.stop("fast");
      await Bun.sleep(OUTAGE_MS / 2);
      readyWhileDown = await rig.ready();
      await Bun.sleep(OUTAGE_MS / 2);
      restartingAt = traffic.elapsed();
      await rig.postgres.start();
      startedAt = traffic.elapsed();
      // Ready again by itself, within a bound: polled, since how long Postgres takes to
      // accept connections after `pg_ctl start` depends on the machine.
      const deadline = Date.now() + RECOVERY_MS;
      do {
        readyWhenBack = await rig.ready();
        if (readyWhenBack.startsWith("200")) break;
        await Bun.sleep(100);
      } while (Date.now() < deadline);
      readyAt = traffic.elapsed();
      await Bun.sleep(SETTLED_MS);
    } finally {
      await traffic.stop();
    }

    const answers = traffic.answers;
    const phases = aroundOutage(answers, stoppedAt, startedAt);
    const settled = answers.filter((answer) => answer.at >= readyAt);
    const billedBeforeSweep = await rig.billing();
    if (rig.service.pid() === null) throw new Error(`the service died:\n${rig.service.tail()}`);
    const { stranded, after: billing } = await sweepStranded(rig);
    const received = billableAnswers(answers);
    const recoveredAfterMs = firstArrivalAfter(answers, restartingAt, (answer) => answer.status === 200);
    console.log(
      JSON.stringify({
        ...phases,
        recoveredAfterMs,
        billedBeforeSweep,
        stranded,
        billing,
        received,
      }),
    );

    expect(rig.service.pid()).toBe(pid);
    // The readiness probe takes the instance out of a load balancer while Postgres is down.
    expect(readyWhileDown).toBe("503 service_unavailable");
    expect(readyWhenBack).toBe("200 database=ok cache=ok");
    expect(contractProblems(answers)).toEqual([]);
    // Every request got an answer (no connection error, no client timeout), and quickly.
    expect(answers.filter((answer) => answer.status <= 0)).toEqual([]);
    expect(Math.max(...Object.values(phases.outage).map((kind) => kind.max))).toBeLessThan(3000);
    // While down: only 503 service_unavailable, and 400 for bad input while the key was cached.
    const outageAnswers = answers.filter(
      (answer) => answer.at >= stoppedAt + 200 && answer.at + answer.ms < restartingAt,
    );
    const outageOutcomes = new Set(outageAnswers.map((answer) => `${answer.status} ${answer.code}`));
    for (const outcome of outageOutcomes)
      expect(outcome).toMatch(/^(503 service_unavailable|400 invalid_\w+)$/);
    expect(outageAnswers.filter((answer) => answer.status === 503).length).toBeGreaterThan(20);
    // Throughout: 200, 400 or 503 — never a 500.
    expect(answers.filter((answer) => ![200, 400, 503].includes(answer.status))).toEqual([]);
    // Once the service reports ready again, everything is answered again.
    expect(settled.length).toBeGreaterThan(5);
    expect(settled.filter((answer) => answer.status !== 200 && answer.status !== 400)).toEqual([]);
    expectBilledAsAnswered(answers, billing);
    expect(billedBeforeSweep.reserved).toBe(billedBeforeSweep.reservations);
  });
});
