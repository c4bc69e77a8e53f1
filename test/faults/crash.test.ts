import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { expireReservations } from "../support/billing-rows.ts";
import { faultRigForDescribe } from "../support/fault-rig.ts";
import { seedFrom } from "../support/prng.ts";
import {
  type Answer,
  billableAnswers,
  billingProblems,
  contractProblems,
  NETWORK_ERROR,
  summarize,
} from "../support/traffic.ts";

setDefaultTimeout(90_000);

const SEED = seedFrom("FAULT_SEED");
const KILLS = 3;

/**
 * kill -9 of the service under sustained load, then a restart on the same database, three
 * times. The meter commits a unit before the answer is sent, so an answer the client
 * received as billable is always billed; the reverse gap — a unit committed in the last
 * moment before the kill, whose answer never left — is measured per kill and bounded by the
 * requests that were in flight. Reservations stranded by the crash are released by the
 * sweep (their lease is ended early here instead of waiting 60 s) and never billed.
 */
describe.if(Boolean(process.env.DATABASE_URL))("kill -9 of the service under load", () => {
  const startedRig = faultRigForDescribe(SEED);

  test("billed units match the billable answers received, kill after kill", async () => {
    const rig = startedRig();
    const traffic = rig.traffic({
      loops: 8,
      seed: SEED,
      weights: { iban: 5, vat_fresh: 2, vat_cached: 2, bad: 1 },
    });
    const kills: { inFlight: number; billed: number; received: number; excess: number }[] = [];
    let lastExcess = 0;
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        await Bun.sleep(1500);
        const killedAt = traffic.elapsed();
        await rig.service.crash();
        // Every request in flight fails within moments of the kill; afterwards nothing moves.
        await Bun.sleep(300);
        const billing = await rig.billing();
        const received = billableAnswers(traffic.answers);
        const inFlight = traffic.answers.filter(
          (answer) =>
            answer.status === NETWORK_ERROR && answer.at < killedAt && answer.at + answer.ms >= killedAt,
        ).length;
        const excess = billing.used - received;
        kills.push({ inFlight, billed: billing.used, received, excess: excess - lastExcess });
        lastExcess = excess;
        // Never an answer received as billable without its unit in the database.
        expect(excess).toBeGreaterThanOrEqual(0);
        await expireReservations(rig.postgres.sql, rig.keyIds);
        await rig.service.start();
      }
      await Bun.sleep(1500);
    } finally {
      await traffic.stop();
    }

    const billing = await rig.billing();
    const received = billableAnswers(traffic.answers);
    const inFlightTotal = kills.reduce((sum, kill) => sum + kill.inFlight, 0);
    console.log(
      JSON.stringify({
        kills,
        final: { ...billing, received, answers: traffic.answers.length },
        byKind: summarize(traffic.answers),
      }),
    );
    expect(contractProblems(traffic.answers)).toEqual([]);
    // Answers are 200 or 400 (bad input); every other outcome is a refused connection while down.
    const unexpected = traffic.answers.filter(
      (answer: Answer) => answer.status !== NETWORK_ERROR && answer.status !== 200 && answer.status !== 400,
    );
    expect(unexpected).toEqual([]);
    expect(received).toBeGreaterThan(100);
    // Each kill can only have billed units for requests that were in flight when it happened.
    for (const kill of kills) expect(kill.excess).toBeLessThanOrEqual(kill.inFlight);
    expect(billing.used - received).toBe(kills.reduce((sum, kill) => sum + kill.excess, 0));
    expect(billing.used - received).toBeLessThanOrEqual(inFlightTotal);
    expect(billingProblems(traffic.answers, billing.used)).toEqual([]);
    // The stranded reservations were swept; everything else settled before its answer.
    expect(billing).toMatchObject({ reserved: 0, reservations: 0 });
    expect(rig.service.errors).toEqual([]);
  });
});
