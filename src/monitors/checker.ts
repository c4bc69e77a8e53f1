import type { Account } from "../accounts/authenticator.ts";
import type { Meter, Reservation } from "../accounts/meter.ts";
import { createClaimWorker, leaseTokens } from "../background/claim-worker.ts";
import { FairShare } from "../background/fair-share.ts";
import { Batcher } from "../kernel/batcher.ts";
import type { Clock } from "../kernel/clock.ts";
import type { Database, Rows } from "../kernel/db.ts";
import type { Logger } from "../kernel/log.ts";
import { insertRecords, recordOf, type ValidationRecord } from "../validation/records.ts";
import type { VatResult } from "../vat/schema.ts";
import type { VatService } from "../vat/service.ts";
import { changesBetween, supersedes } from "./changes.ts";
import { recordEvents } from "./events.ts";
import { afterQuotaReset, nextRound, outageDelayMs } from "./schedule.ts";
import { findMonitor } from "./store.ts";
import {
  type CheckWrite,
  type ClaimedCheck,
  claimChecks,
  dueKeys,
  type HeldMonitor,
  keepClaimed,
  postponeCheck,
  prepareChecks,
  recordChecks,
  releaseLeases,
  renewLeases,
  unschedule,
} from "./work.ts";

export type MonitorCheckerOptions = {
  database: Database;
  vat: VatService;
  meter: Meter;
  /** The account of a key, null when the key is gone or revoked. */
  account(keyId: string): Promise<Account | null>;
  clock: Clock;
  log: Logger;
  /** Checks worked on at the same time by this instance, shared fairly among the keys with checks due. */
  concurrency: number;
  /** Checks of one member state (VAT prefix) worked on at the same time by this instance; those beyond wait unclaimed. */
  perStateMax: number;
  /** How often due checks are looked for while there is nothing to do. */
  pollMs: number;
  /** How long a claim holds a check; renewed while it is worked on. */
  leaseMs: number;
  /** How long a check that meets an outage is retried as a batch item would be, before hourly. */
  retryWindowSeconds: number;
  /** Whether this process is the only worker there can be (embedded): leases left by a crash are dropped at start. */
  soleWorker: boolean;
  /** Told what came of each check this instance took up, for metrics. */
  onChecked?: (outcome: CheckOutcome) => void;
  random?: () => number;
};

/**
 * What came of a check: `answered` (its answer kept and compared), `outage` (tried again
 * later), `quota` (waits for the quota's reset), `dropped` (its monitor was deleted or claimed
 * again meanwhile; nothing written), `unscheduled` (its key is gone).
 */
export type CheckOutcome = "answered" | "outage" | "quota" | "dropped" | "unscheduled";

type Answered = {
  check: ClaimedCheck;
  result: VatResult;
  /** The authority answered this check: the billable case, with its record. */
  fresh: boolean;
  reservation: Reservation | null;
};

/**
 * Checks the watched numbers that are due: claims them from the database as slots free (the
 * keys with checks due in turn, each within its fair share of the slots, each key's earliest
 * first; checks of a member state beyond `perStateMax` in flight wait unclaimed),
 * asks the VAT service about each as /validate would — the same cache, coalescing and
 * per-state slots, behind every interactive request and batch item for a slot — and finishes
 * each with its billing (`Meter.complete`, a unit when the authority answered fresh), its
 * comparison with the last answer and the events that come of it, many checks per
 * transaction. A check that meets an outage never becomes an event: it is tried again later;
 * one whose key's quota is used up waits for the reset.
 */
export function createMonitorChecker(options: MonitorCheckerOptions) {
  const { database, meter, log, clock, leaseMs } = options;
  const random = options.random ?? Math.random;
  const slots = new FairShare(options.concurrency, Number.POSITIVE_INFINITY, options.perStateMax);

  /** Writes the checks that stand, their events and their records; says which stood. */
  const record = async (
    rows: Rows,
    answered: Answered[],
    held: (HeldMonitor | null)[],
    billed: boolean[],
  ) => {
    const nowMs = clock.now();
    const writes: CheckWrite[] = [];
    const changed: { answer: Answered; previous: VatResult }[] = [];
    const records: ValidationRecord[] = [];
    answered.forEach((answer, index) => {
      const monitor = held[index];
      if (!monitor) return;
      const { check, result } = answer;
      const newer = supersedes(monitor.lastResult, result);
      const dueMs = nextRound(
        { dueMs: monitor.dueMs, intervalDays: monitor.intervalDays, firstAnswer: !monitor.answered },
        nowMs,
        random,
      );
      writes.push({
        monitorId: check.monitorId,
        lastResult: newer || monitor.lastResult === null ? result : monitor.lastResult,
        nowMs,
        dueMs,
        nextCheckMs: monitor.status === "active" ? dueMs : null,
      });
      if (newer && monitor.lastResult !== null) changed.push({ answer, previous: monitor.lastResult });
      if (answer.fresh && billed[index]) {
        const proof = recordOf(`${check.monitorId}.${monitor.checks + 1}`, check.keyId, result, check.match);
        if (proof) records.push(proof);
      }
    });
    await recordChecks(rows, writes);
    await insertRecords(rows, records);
    for (const { answer, previous } of changed) {
      const types = changesBetween(previous, answer.result);
      if (types.length === 0) continue;
      const monitor = await findMonitor(rows, answer.check.keyId, answer.check.monitorId);
      if (!monitor) continue;
      const messages = types.map((type) => ({ type, data: { monitor, previous, current: answer.result } }));
      await recordEvents(rows, answer.check.keyId, monitor, messages, nowMs);
    }
  };

  const finishing = new Batcher<Answered, boolean>(async (answered) => {
    let held: (HeldMonitor | null)[] = [];
    await meter.complete(
      answered.map(({ check, reservation, fresh }) => ({ keyId: check.keyId, reservation, bill: fresh })),
      {
        keep: async (rows) => {
          held = await keepClaimed(
            rows,
            answered.map(({ check }) => check),
          );
          return held.map((monitor) => monitor !== null);
        },
        record: (rows, billed) => record(rows, answered, held, billed),
      },
    );
    return held.map((monitor) => monitor !== null);
  });

  const postpone = async (check: ClaimedCheck, outcome: "outage" | "quota", nextMs: number) => {
    await postponeCheck(database, check, { nextMs, nowMs: clock.now(), failed: outcome === "outage" });
    options.onChecked?.(outcome);
  };

  const outage = (check: ClaimedCheck) => {
    const nowMs = clock.now();
    const delay = outageDelayMs(
      check.attempts + 1,
      check.retrySinceMs ?? nowMs,
      nowMs,
      options.retryWindowSeconds,
      random,
    );
    return postpone(check, "outage", nowMs + delay);
  };

  const finish = async (answer: Answered) => {
    const stood = await finishing.submit(answer);
    options.onChecked?.(stood ? "answered" : "dropped");
  };

  /** `untarget`: the check will not wait for its member state (answered from the cache). */
  const work = async (check: ClaimedCheck, untarget: () => void): Promise<void> => {
    const account = await options.account(check.keyId);
    if (!account) {
      await unschedule(database, check);
      options.onChecked?.("unscheduled");
      return;
    }
    const plan = await options.vat.plan(check.vatNumber, check.match);
    if (plan.kind === "answered") {
      untarget();
      // A cache hit is an answer, free; anything else answered here (the UK check turned off
      // since the monitor was made) is waited out like an outage.
      if (plan.result.valid === null) return outage(check);
      return finish({ check, result: plan.result, fresh: false, reservation: null });
    }
    const admission = await meter.admit({
      keyId: check.keyId,
      quota: account.monthlyQuota,
      charge: false,
      reserve: true,
      count: false,
    });
    if (!admission.ok) return postpone(check, "quota", afterQuotaReset(admission.resetMs, random));
    const reservation = admission.reservation;
    const resolution = await options.vat.resolve(plan, {
      background: true,
      lowest: true,
      staleFallback: false,
      owner: check.keyId,
    });
    // A copy is no news: the cache's own answer, stood in for a member state's match codes
    // that did not come, would compare as a change of who matched.
    if (resolution.result.valid === null || (!resolution.fresh && plan.freshCopy !== null)) {
      if (reservation) await meter.settle(reservation, false);
      return outage(check);
    }
    await finish({ check, result: resolution.result, fresh: resolution.fresh, reservation });
  };

  return createClaimWorker({
    slots,
    pollMs: options.pollMs,
    log,
    events: {
      claimFailed: "monitor_claim_failed",
      workFailed: "monitor_check_failed",
    },
    prepare: () => prepareChecks(database, options.soleWorker),
    async find(afterKey, window) {
      // The claim goes by the look's time: it takes what the look counted, not what fell due since.
      const nowMs = clock.now();
      return {
        due: await dueKeys(database, nowMs, afterKey, window, slots),
        claim: (wanted, idle) =>
          claimChecks(
            database,
            nowMs,
            wanted.map(({ unit: { keyId }, take }) => ({ keyId, take })),
            leaseMs,
            idle.map(({ keyId }) => keyId),
            { slots, window },
          ),
      };
    },
    target: (check) => check.prefix,
    work,
    describe: (check) => ({ monitor: check.monitorId }),
    renewal: {
      leaseMs,
      renew: (tokens) => renewLeases(database, tokens, leaseMs),
      failed: "monitor_lease_renewal_failed",
    },
    release: (held) => releaseLeases(database, leaseTokens(held)),
    flush: () => finishing.idle(),
  });
}

export type MonitorChecker = ReturnType<typeof createMonitorChecker>;
