import type { Account } from "../accounts/authenticator.ts";
import { ibanIsBillable } from "../accounts/billing.ts";
import type { Meter, Reservation } from "../accounts/meter.ts";
import { createClaimWorker, leaseTokens } from "../background/claim-worker.ts";
import { FairShare } from "../background/fair-share.ts";
import type { IbanEngine } from "../iban/engine.ts";
import type { IbanResult } from "../iban/schema.ts";
import { Batcher } from "../kernel/batcher.ts";
import type { Database } from "../kernel/db.ts";
import { type ApiErrorBody, componentError } from "../kernel/errors.ts";
import type { Logger } from "../kernel/log.ts";
import type { MatchResult } from "../matching/schema.ts";
import { insertRecords, recordOf, type ValidationRecord } from "../validation/records.ts";
import type { VatResult } from "../vat/schema.ts";
import type { VatService } from "../vat/service.ts";
import { queueBatchWebhook } from "../webhooks/messages.ts";
import {
  type ClaimedItem,
  claimItems,
  type DueBatch,
  dueBatches,
  type ItemOutcome,
  keepClaimed,
  prepareClaims,
  recordFinished,
  releaseLeases,
  renewLeases,
  rescheduleItem,
} from "./work.ts";

export type BatchProcessorOptions = {
  database: Database;
  iban: IbanEngine;
  vat: VatService;
  meter: Meter;
  /** The account of a key, null when the key is gone or revoked. */
  account(keyId: string): Promise<Account | null>;
  log: Logger;
  /** Items worked on at the same time by this instance, shared fairly among the keys with work. */
  concurrency: number;
  /**
   * Items of one member state (VAT prefix) worked on at the same time by this instance,
   * whichever keys they are of: those beyond wait unclaimed, so the items of a slow or hanging
   * state cannot hold the slots that other states' items could use.
   */
  perStateMax: number;
  /** How often batches with due items are looked for while there is nothing to do. */
  pollMs: number;
  /** How long an item whose member state fails is retried, from its first failure. */
  retryWindowSeconds: number;
  /** How long a claim holds an item; renewed while it is worked on. */
  leaseMs: number;
  /** Told how many items this instance finished, by status, for metrics. */
  onFinished?: (status: "done" | "failed", count: number) => void;
  /** Whether this process is the only worker there can be (embedded): leases left by a crash are dropped at start. */
  soleWorker: boolean;
};

/** Upstream failures a batch item waits out instead of failing at once. */
const RETRYABLE = new Set(["member_state_unavailable", "service_unavailable", "upstream_rate_limited"]);

/**
 * The delay before an item's next attempt after `attempts` failed ones: exponential from a
 * twentieth of the retry window (at most 5 s), up to a quarter of it (at most 5 minutes), with
 * jitter, so the items of a state that is down come back spread out rather than together.
 */
export function retryDelayMs(
  attempts: number,
  windowSeconds: number,
  random: () => number = Math.random,
): number {
  const windowMs = windowSeconds * 1000;
  const first = Math.min(5_000, windowMs / 20);
  const ceiling = Math.min(first * 2 ** Math.max(0, attempts - 1), Math.min(300_000, windowMs / 4));
  return ceiling / 2 + (random() * ceiling) / 2;
}

/**
 * A repeat's VAT answer: its first item's, as a cache hit serves it — `cached` when it carries
 * the authority's check (its `checked_at` and consultation number stay that check's) — with
 * the repeat's own spelling of the number as `input` and the match of its own details.
 */
export function repeatAnswer(input: string, first: VatResult, match: MatchResult | null): VatResult {
  return { ...first, input, cached: first.checked_at !== null, match };
}

type Finished = ItemOutcome & {
  reservation: Reservation | null;
  bill: boolean;
  record: ValidationRecord | null;
};

/**
 * Works through the batches in the database: claims due items as slots free (the keys with
 * work in turn, each within its fair share of the slots, so one key's large or slow batch does
 * not hold up another's; batches whose items all wait are not looked at), validates each like
 * /validate does — the same IBAN engine, VAT cache, coalescing and per-state limit, but behind
 * every interactive request for a VIES slot — and writes each result together with its billing
 * (`Meter.complete`), many items per transaction. A repeat (an item whose VAT number and
 * `match` an earlier item of its batch has) is claimed only once that item is finished, and
 * gets its answer as a cache hit, never asking the authority. An item whose member state fails waits and is
 * tried again until the retry window closes; then it is answered from the last-known-good copy
 * or fails with the upstream's code.
 */
export function createBatchProcessor(options: BatchProcessorOptions) {
  const { database, meter, log } = options;
  const { leaseMs } = options;
  const slots = new FairShare(options.concurrency, Number.POSITIVE_INFINITY, options.perStateMax);

  const finishing = new Batcher<Finished, null>(async (finished) => {
    let kept: boolean[] = [];
    await meter.complete(
      finished.map(({ item, reservation, bill }) => ({ keyId: item.keyId, reservation, bill })),
      {
        keep: async (rows) => {
          kept = await keepClaimed(rows, finished);
          return kept;
        },
        record: async (rows, billed) => {
          const standing = finished.filter((_, index) => kept[index]);
          const completed = await recordFinished(
            rows,
            standing,
            billed.filter((_, index) => kept[index]),
          );
          await insertRecords(
            rows,
            standing.flatMap(({ record }) => (record ? [record] : [])),
          );
          for (const { batch, keyId } of completed)
            await queueBatchWebhook(rows, keyId, "batch.completed", batch);
        },
      },
    );
    for (const status of ["done", "failed"] as const) {
      const count = finished.filter((outcome, index) => kept[index] && outcome.status === status).length;
      if (count > 0) options.onFinished?.(status, count);
    }
    return finished.map(() => null);
  });

  const finish = (item: ClaimedItem, outcome: Omit<Finished, "item">) =>
    finishing.submit({ item, ...outcome });

  const fail = (item: ClaimedItem, reservation: Reservation | null, error: ApiErrorBody) =>
    finish(item, {
      status: "failed",
      vat: null,
      iban: null,
      error,
      valid: false,
      reservation,
      bill: false,
      record: null,
    });

  /** `untarget`: the item will not wait for its member state (answered from the cache, or refused). */
  const work = async (item: ClaimedItem, untarget: () => void): Promise<void> => {
    const account = await options.account(item.keyId);
    if (!account)
      return void (await fail(item, null, componentError("forbidden", "the API key has been revoked")));
    const { first } = item;
    // A repeat fails as its first item did when that had no answer: the same failure, unbilled.
    if (first?.vat === null) return void (await fail(item, null, first.error));
    const iban: IbanResult | null = item.iban === null ? null : options.iban.validate(item.iban);
    const plan = item.vat === null || first !== null ? null : await options.vat.plan(item.vat, item.match);
    if (plan?.kind !== "upstream") untarget();
    const ibanBillable = iban !== null && ibanIsBillable(iban);
    let reservation: Reservation | null = null;
    // A fresh copy the item went past only for the member state's match codes: its answer
    // when the quota is used up.
    let copy: VatResult | null = null;
    if (ibanBillable || plan?.kind === "upstream") {
      const admission = await meter.admit({
        keyId: item.keyId,
        quota: account.monthlyQuota,
        charge: false,
        reserve: true,
        count: false,
      });
      if (admission.ok) reservation = admission.reservation;
      else if (plan?.kind === "upstream" && !ibanBillable && plan.freshCopy !== null) copy = plan.freshCopy;
      else {
        return void (await fail(
          item,
          null,
          componentError("quota_exceeded", "the monthly quota was used up before this item was checked"),
        ));
      }
    }
    let vat: VatResult | null =
      first !== null
        ? repeatAnswer(item.vat ?? first.vat.input, first.vat, options.vat.matchAnswer(first.vat, item.match))
        : plan?.kind === "answered"
          ? plan.result
          : copy;
    let fresh = false;
    if (plan?.kind === "upstream" && copy === null) {
      // The last attempt is made when the window closes, not a delay before it: an item
      // fails only once its member state has been down for the whole window.
      const untilClose =
        item.retryUntilMs === null ? Number.POSITIVE_INFINITY : item.retryUntilMs - item.claimedAtMs;
      const lastChance = untilClose <= 0;
      const delay = Math.min(retryDelayMs(item.attempts, options.retryWindowSeconds), untilClose);
      const resolution = await options.vat.resolve(plan, {
        background: true,
        staleFallback: lastChance,
        owner: item.keyId,
      });
      const code = resolution.result.error?.code;
      if (code !== undefined && RETRYABLE.has(code) && !lastChance) {
        if (reservation) await meter.settle(reservation, false);
        await rescheduleItem(database, item, delay, options.retryWindowSeconds);
        return;
      }
      vat = resolution.result;
      fresh = resolution.fresh;
    }
    // A malformed number is an answer here (`valid: false`, counted invalid): for a list, that is
    // what the caller needs to know of it. An item fails when no component could be answered.
    const components = [vat, iban].filter((component) => component !== null);
    const answered = components.some((component) => component.valid !== null);
    const firstError = components.find((component) => component.error !== null)?.error ?? null;
    await finish(item, {
      status: answered ? "done" : "failed",
      vat,
      iban,
      error: answered ? null : firstError,
      valid: components.every((component) => component.valid !== false),
      reservation,
      bill: fresh || ibanBillable,
      record: fresh && vat ? recordOf(`${item.batchId}.${item.index}`, item.keyId, vat, item.match) : null,
    });
  };

  return createClaimWorker<DueBatch, ClaimedItem>({
    slots,
    pollMs: options.pollMs,
    log,
    events: {
      claimFailed: "batch_claim_failed",
      workFailed: "batch_item_failed",
    },
    prepare: () => prepareClaims(database, options.soleWorker),
    async find(afterKey, window) {
      return {
        due: await dueBatches(database, afterKey, window, slots),
        claim: (wanted, idle) =>
          claimItems(
            database,
            wanted.map(({ unit: { id, keyId }, take }) => ({ id, keyId, take })),
            leaseMs,
            idle.map(({ id }) => id),
            { slots, window },
          ),
      };
    },
    target: (item) => item.prefix ?? undefined,
    work,
    describe: (item) => ({ batch: item.batchId, index: item.index }),
    renewal: {
      leaseMs,
      renew: (tokens) => renewLeases(database, tokens, leaseMs),
      failed: "batch_lease_renewal_failed",
    },
    release: (held) => releaseLeases(database, leaseTokens(held)),
    flush: () => finishing.idle(),
  });
}

export type BatchProcessor = ReturnType<typeof createBatchProcessor>;
