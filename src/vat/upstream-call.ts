import type { Logger } from "../kernel/log.ts";
import type { Budget } from "./budget.ts";
import type { Caller, KeyedLimiter } from "./limiter.ts";
import type { Pacer } from "./pacer.ts";
import type { UpstreamCheck, UpstreamFault, UpstreamOutcome, VatUpstream } from "./upstream.ts";

export type RetryPolicy = {
  /** Calls at most, the first included. */
  maxAttempts: number;
  /** The ceiling of the first retry's delay; it doubles per retry. */
  baseDelayMs: number;
  /** The largest ceiling a delay may have. */
  maxDelayMs: number;
  /** A retry only starts when at least this much of the budget is left after its delay. */
  minAttemptMs: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 2_000,
  minAttemptMs: 500,
};

/**
 * The delay before retry number `retry` (1 for the first): an exponential ceiling with equal
 * jitter, between half the ceiling and the ceiling. The jitter keeps callers throttled together
 * from coming back together; the floor keeps a retry from landing on the same busy moment.
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return ceiling / 2 + (random() * ceiling) / 2;
}

export type UpstreamCallOptions = {
  upstream: VatUpstream;
  /** Slots per VIES prefix (the member state); each national service is its own key (GB, CH, NO). */
  limiter: KeyedLimiter;
  /** Per key, a rate its calls keep to (the Swiss UID register's calls per minute). */
  pacers?: Partial<Record<string, Pacer>>;
  /** The most one call may take; the budget left may cut it shorter. */
  attemptTimeoutMs: number;
  retry: RetryPolicy;
  random: () => number;
  log: Logger;
};

/** What came of one logical upstream call, and how many HTTP calls it took. */
export type UpstreamCallReport = { outcome: UpstreamOutcome; attempts: number };

/** The fault for a caller that found every slot of the member state taken for its whole budget. */
const NO_SLOT: UpstreamFault = {
  kind: "fault",
  code: "upstream_rate_limited",
  detail: "LOCAL_CONCURRENCY_LIMIT",
  retryable: false,
};

/** The fault for a caller whose turn under the upstream's rate would come after its budget. */
const NO_TURN: UpstreamFault = {
  kind: "fault",
  code: "upstream_rate_limited",
  detail: "LOCAL_RATE_LIMIT",
  retryable: false,
};

/**
 * Asks the upstream within `budget`: each attempt holds a slot of the member state (and waits
 * for its turn under the upstream's rate, where it has one) and gets the
 * attempt timeout or what is left of the budget, whichever is less. A caller that waits for a
 * slot until too little budget is left gets `upstream_rate_limited` without a call. Retryable faults
 * (throttling, timeouts) are retried with backoff while attempts and budget remain; other
 * faults and verdicts are final. Never throws when the upstream does not.
 */
export async function callUpstream(
  check: UpstreamCheck,
  budget: Budget,
  options: UpstreamCallOptions,
  caller?: Caller,
): Promise<UpstreamCallReport> {
  const { upstream, limiter, attemptTimeoutMs, retry, random, log } = options;
  const pacer = options.pacers?.[check.prefix];
  let last: UpstreamFault = NO_SLOT;
  for (let attempt = 1; ; attempt += 1) {
    // A free slot is taken whatever the budget; waiting for one stops while an attempt would
    // still have `minAttemptMs`, so no call starts that is bound to be cut off at once.
    const release = await limiter.acquire(check.prefix, budget.remainingMs() - retry.minAttemptMs, caller);
    // With no slot the last fault stands: it says more than our own queue does.
    if (release === null) return { outcome: last, attempts: attempt - 1 };
    if (pacer && !(await pacer.acquire(budget.remainingMs() - retry.minAttemptMs))) {
      release();
      return { outcome: attempt === 1 ? NO_TURN : last, attempts: attempt - 1 };
    }
    let outcome: UpstreamOutcome;
    try {
      const timeoutMs = Math.max(0, Math.floor(Math.min(attemptTimeoutMs, budget.remainingMs())));
      outcome = await upstream.check(check, { timeoutMs });
    } finally {
      release();
    }
    if (outcome.kind === "verdict" || !outcome.retryable) return { outcome, attempts: attempt };
    last = outcome;
    const delay = backoffDelayMs(attempt, retry, random);
    if (attempt >= retry.maxAttempts || budget.remainingMs() - delay < retry.minAttemptMs) {
      return { outcome, attempts: attempt };
    }
    log.debug("vat_upstream_retry", {
      prefix: check.prefix,
      attempt,
      detail: outcome.detail,
      delayMs: delay,
    });
    await Bun.sleep(delay);
  }
}
