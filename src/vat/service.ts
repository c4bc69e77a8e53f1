import type { Clock } from "../kernel/clock.ts";
import { componentError } from "../kernel/errors.ts";
import { describeFailure } from "../kernel/failure.ts";
import type { Logger } from "../kernel/log.ts";
import { LegalForms, readLegalFormData } from "../matching/legal-forms.ts";
import { authorityCodesOf, matchTrader, traderFor } from "../matching/match.ts";
import type { MatchRequest, MatchResult } from "../matching/schema.ts";
import type { KeyValueStore } from "../store/kv.ts";
import { AUTHORITIES, type AuthoritySource, authorityOf, type EnabledAuthorities } from "./authorities.ts";
import { type Budget, budgetFrom, settleWithin } from "./budget.ts";
import { type CacheFault, createVatCache, DEFAULT_CACHE_TIMEOUT_MS } from "./cache.ts";
import { checkVatFormat, type VatFormatOk } from "./format/check-vat-format.ts";
import type { LeaseStore } from "./leases.ts";
import { createKeyedLimiter } from "./limiter.ts";
import type { Pacer } from "./pacer.ts";
import {
  faultMessage,
  refusedResult,
  rejectedResult,
  UK_UNCHECKABLE_MESSAGE,
  unavailableResult,
  verdictResult,
} from "./result.ts";
import type { VatResult } from "./schema.ts";
import { createSharedLimiter } from "./shared-limiter.ts";
import { createSingleflight } from "./singleflight.ts";
import type { StatusService } from "./status.ts";
import type {
  TraderDetails,
  UpstreamFault,
  UpstreamOutcome,
  UpstreamPath,
  UpstreamVerdict,
  VatUpstream,
} from "./upstream.ts";
import {
  callUpstream,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type UpstreamCallReport,
} from "./upstream-call.ts";

export type VatServiceOptions = {
  /** The VIES client: every EU prefix and XI. */
  vies: VatUpstream;
  /** The UK client for GB numbers; null while the UK check is not enabled (the default). */
  uk: VatUpstream | null;
  /** The Swiss UID register's client for CHE numbers; null (the default here) while it is off. */
  ch?: VatUpstream | null;
  /** The Norwegian register's client for NO numbers; null (the default here) while it is off. */
  no?: VatUpstream | null;
  /** Per prefix, the rate its upstream's calls keep to (CH: the UID register's calls per minute). */
  pacers?: Partial<Record<string, Pacer>>;
  /** VIES's reported availability, read before each VIES call (from memory). */
  status: Pick<StatusService, "reportedOutage">;
  /** Where verdicts are cached; shared by every instance when it is Redis or Upstash. */
  store: KeyValueStore;
  /** Decides cache freshness. */
  clock: Clock;
  log: Logger;
  /** How long a verdict is served from cache; defaults to 24 hours. */
  freshTtlSeconds?: number;
  /** How long a verdict is kept as last-known-good for outages; defaults to 30 days. */
  lkgTtlSeconds?: number;
  /** The most a cache call may add before it counts as a store outage; defaults to 150. */
  cacheTimeoutMs?: number;
  /** Told of every cache fault (the cache already logs them), for metrics. */
  onCacheFault?: (fault: CacheFault) => void;
  /** Told of every cache lookup of a well-formed number: fresh hit, stale copy only, or nothing. */
  onCacheLookup?: (result: "hit" | "stale" | "miss") => void;
  /** The most one VAT answer takes from `plan` to the end of `resolve`, retries included; defaults to 8 000. */
  deadlineMs?: number;
  /** The most one background answer (a batch item's) may take, waiting for a slot included; defaults to 30 000. */
  backgroundDeadlineMs?: number;
  /** The most one upstream call may take; defaults to `deadlineMs`. */
  attemptTimeoutMs?: number;
  /**
   * With a last-known-good copy at hand, how long to wait for the authority before serving
   * the copy (the call goes on, and refreshes the cache if it answers); defaults to `deadlineMs`.
   */
  staleAfterMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Upstream calls in flight per member state (VIES prefix; GB, CH, NO for the national services); defaults to 4. */
  maxConcurrentPerState?: number;
  /** Calls waiting for a slot per member state; one more is refused at once; defaults to 100. */
  maxWaitingPerState?: number;
  /**
   * Where the slots per member state are held across instances (Redis, or Postgres without
   * it); absent, each instance has its own (embedded: there is one).
   */
  sharedSlots?: SharedSlots | null;
  /** The Retry-After hint for an upstream fault answered without a cached copy; defaults to 60. */
  retryAfterSeconds?: number;
  /** Jitter source for retry delays; defaults to Math.random. */
  random?: () => number;
  /** Legal-form designations for name matching; defaults to the committed data. */
  legalForms?: LegalForms;
};

export type SharedSlots = {
  leases: LeaseStore;
  /** How long a lease lasts unless renewed. */
  leaseMs: number;
  /** The most one step of the lease store may take before the instance's own slots stand in. */
  timeoutMs: number;
  /** Told of every failure of the lease store. */
  onFailure?: () => void;
};

export const DEFAULT_DEADLINE_MS = 8_000;
export const DEFAULT_BACKGROUND_DEADLINE_MS = 30_000;
export const DEFAULT_MAX_CONCURRENT_PER_STATE = 4;
export const DEFAULT_MAX_WAITING_PER_STATE = 100;
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

/** Upstream work is needed. Pass it to `resolve` as it is. */
export type UpstreamPlan = {
  kind: "upstream";
  input: string;
  format: VatFormatOk;
  /** Who answers for the number: VIES, or a national service. */
  source: AuthoritySource;
  /** Its client, which will be asked. */
  authority: VatUpstream;
  /** A stale copy of the verdict, served if the upstream fails. */
  lastKnownGood: UpstreamVerdict | null;
  /** The details to match, when the caller sent some. */
  match: MatchRequest | null;
  /**
   * The cache's fresh answer, matched here, when the plan goes upstream only for the member
   * state's own match codes: served instead, unbilled, when the call fails or cannot be paid for.
   */
  freshCopy: VatResult | null;
  /** `performance.now()` when planning started: the deadline counts from here. */
  startedAt: number;
};

export type ResolveOptions = {
  /**
   * Work nobody waits on (a batch item): it takes a member state's free slot only after every
   * interactive request waiting for one, has `backgroundDeadlineMs` for it all, and is not
   * cut short to serve a last-known-good copy.
   */
  background?: boolean;
  /** Whether an upstream failure is answered with the last-known-good copy (the default); else with the error. */
  staleFallback?: boolean;
  /** Whose background work it is (an API key): background calls take turns for slots by owner. */
  owner?: string;
  /**
   * Background work behind all other background work (a monitor's check): a member state's
   * free slot goes to every waiting batch item first. Implies `background`.
   */
  lowest?: boolean;
};

export type VatPlan =
  /** Rejected locally, GB while the UK check is off, or a fresh cache hit: never billable. */
  { kind: "answered"; result: VatResult } | UpstreamPlan;

/** What went on upstream for one answer, for the request log line and metrics. */
export type UpstreamReport = {
  /** HTTP calls this request made; 0 when it joined another request's call. */
  attempts: number;
  /** Time spent in `resolve`. */
  ms: number;
  /** The fault's raw cause (`MS_UNAVAILABLE`, `CLIENT_TIMEOUT`, `STATUS_UNAVAILABLE`...); null for a verdict. */
  detail: string | null;
  /** Whether this request joined a call already in flight for the same number. */
  shared: boolean;
  /** The door that answered the last call (VIES: `soap` or `rest`); null when none did or the authority has one. */
  path: UpstreamPath | null;
};

export type VatResolution = {
  result: VatResult;
  /** A definitive upstream verdict was obtained for this request: the billable case. */
  fresh: boolean;
  /** Seconds for `Retry-After` when `result.error` is an upstream fault; null otherwise. */
  retryAfterSeconds: number | null;
  upstream: UpstreamReport;
};

export interface VatService {
  /**
   * Format check, then the cache. Decides whether upstream work (and so a billing unit) is
   * needed. With `match`, the answer carries the match of those details. Never throws.
   */
  plan(input: string, match?: MatchRequest | null): Promise<VatPlan>;
  /** Asks the authority within the deadline and answers with the verdict, the last-known-good copy or an error. Never throws. */
  resolve(plan: UpstreamPlan, options?: ResolveOptions): Promise<VatResolution>;
  /**
   * The last-known-good answer of a plan when the outage is known without asking the
   * authority (VIES's status reports the member state or VIES itself down); null otherwise.
   * For a request that may not spend a unit on the authority.
   */
  staleDuringKnownOutage(plan: UpstreamPlan): VatResult | null;
  /**
   * The match of `match` against an answer given before (a batch item's repeat of an earlier
   * one): the member state's codes where it answered for the same details, the rest compared
   * here with the name and address the answer discloses.
   */
  matchAnswer(result: VatResult, match: MatchRequest | null): MatchResult | null;
}

/** Who waits for a call in flight: anyone interactive (urgent), or only lowest work (last). */
type Urgency = { urgent: boolean; last: boolean };

/** GD and HA numbers carry letters; HMRC's lookup only takes the 9 or 12 digit forms. */
const HMRC_CHECKABLE = /^\d+$/;

/**
 * Why no authority can be asked about a well-formed number here — its authority is off on this
 * deployment (GB by default; CH or NO when switched off), or it is a GB government or
 * health-authority number — or null when one can.
 */
export function uncheckableReason(format: VatFormatOk, enabled: EnabledAuthorities): string | null {
  const source = authorityOf(format.prefix);
  if (!enabled[source]) return AUTHORITIES[source].disabledMessage;
  return format.prefix === "GB" && !HMRC_CHECKABLE.test(format.number) ? UK_UNCHECKABLE_MESSAGE : null;
}

const fault = (code: UpstreamFault["code"], detail: string): UpstreamFault => ({
  kind: "fault",
  code,
  detail,
  retryable: false,
});

/**
 * The VAT service: one `vat` input to one VatResult, in two phases so the caller can reserve a
 * billing unit between learning that upstream work is needed (`plan`) and that work (`resolve`).
 */
export function createVatService(options: VatServiceOptions): VatService {
  const { status, store, clock, log } = options;
  const upstreams: Record<AuthoritySource, VatUpstream | null> = {
    vies: options.vies,
    uk_authority: options.uk,
    ch_uid: options.ch ?? null,
    no_brreg: options.no ?? null,
  };
  const enabled: EnabledAuthorities = {
    vies: true,
    uk_authority: upstreams.uk_authority !== null,
    ch_uid: upstreams.ch_uid !== null,
    no_brreg: upstreams.no_brreg !== null,
  };
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const staleAfterMs = options.staleAfterMs ?? deadlineMs;
  const backgroundDeadlineMs = options.backgroundDeadlineMs ?? DEFAULT_BACKGROUND_DEADLINE_MS;
  const retryAfterSeconds = options.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  const cacheTimeoutMs = options.cacheTimeoutMs ?? DEFAULT_CACHE_TIMEOUT_MS;
  const cache = createVatCache({
    store,
    clock,
    log: (event, fields) => log.warn(event, fields),
    timeoutMs: cacheTimeoutMs,
    onFault: options.onCacheFault,
    freshTtlSeconds: options.freshTtlSeconds,
    lkgTtlSeconds: options.lkgTtlSeconds,
  });
  const cap = options.maxConcurrentPerState ?? DEFAULT_MAX_CONCURRENT_PER_STATE;
  const local = createKeyedLimiter({
    maxConcurrent: cap,
    maxWaiting: options.maxWaitingPerState ?? DEFAULT_MAX_WAITING_PER_STATE,
  });
  const shared = options.sharedSlots;
  const callOptions = {
    limiter: shared ? createSharedLimiter({ local, cap, log, ...shared }) : local,
    pacers: options.pacers,
    attemptTimeoutMs: options.attemptTimeoutMs ?? deadlineMs,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    random: options.random ?? Math.random,
    log,
  };
  const legalForms = options.legalForms ?? new LegalForms(readLegalFormData());
  const flights = createSingleflight<UpstreamCallReport>();
  /** Per number in flight: whether anyone waiting for its call is interactive, or only lowest work. */
  const urgencies = new Map<string, Urgency>();

  /** The fault VIES's status reports for a number's member state (or VIES itself); national services have none. */
  const reportedFault = (format: VatFormatOk): UpstreamFault | null => {
    const reported = authorityOf(format.prefix) === "vies" ? status.reportedOutage(format.prefix) : null;
    return reported === null ? null : fault(reported.code, reported.detail);
  };

  /** The match of the details sent against a verdict (null: no record to compare with). */
  const matchOf = (
    match: MatchRequest | null,
    country: string | null,
    verdict: UpstreamVerdict | null,
  ): MatchResult | null => {
    if (match === null) return null;
    const registered = verdict?.valid ? { name: verdict.name, address: verdict.address } : null;
    const codes = verdict?.valid ? verdict.traderMatch : null;
    return matchTrader(match, registered, codes, country ?? "", legalForms.of(country ?? ""));
  };

  /** One upstream call for a number, shared by every request for it that arrives meanwhile. */
  const fly = async (
    format: VatFormatOk,
    trader: TraderDetails | null,
    authority: VatUpstream,
    budget: Budget,
    urgency: Urgency,
    owner: string | undefined,
  ): Promise<UpstreamCallReport> => {
    const { prefix, number, vatNumber } = format;
    const reported = reportedFault(format);
    if (reported !== null) return { outcome: reported, attempts: 0 };
    let report: UpstreamCallReport;
    try {
      report = await callUpstream(
        trader === null ? { prefix, number } : { prefix, number, trader },
        budget,
        { ...callOptions, upstream: authority },
        { urgent: () => urgency.urgent, last: () => urgency.last, owner },
      );
    } catch (error) {
      log.error("vat_upstream_threw", { prefix, ...describeFailure(error) });
      return { outcome: fault("service_unavailable", "CLIENT_ERROR"), attempts: 1 };
    }
    const { outcome, attempts } = report;
    if (outcome.kind === "verdict") {
      // The answer does not wait past the deadline for the cache; the write goes on regardless.
      await settleWithin(cache.put(vatNumber, outcome), budget.remainingMs());
    } else if (outcome.code === "invalid_input") {
      log.warn("vat_upstream_refused_input", { prefix, detail: outcome.detail });
    } else {
      log.warn("vat_upstream_fault", { prefix, code: outcome.code, detail: outcome.detail, attempts });
    }
    return report;
  };

  const answer = (plan: UpstreamPlan, outcome: UpstreamOutcome): Omit<VatResolution, "upstream"> => {
    const { input, format, lastKnownGood, match, freshCopy } = plan;
    const country = format.countryCode;
    if (outcome.kind === "verdict") {
      const served = { cached: false, stale: false, warning: null };
      const result = verdictResult(input, format, outcome, served, matchOf(match, country, outcome));
      return { result, fresh: true, retryAfterSeconds: null };
    }
    // The cache's answer stands; only the member state's comparison is missing.
    if (freshCopy !== null) return { result: freshCopy, fresh: false, retryAfterSeconds: null };
    if (outcome.code === "invalid_input") {
      const result = refusedResult(input, format, plan.source, matchOf(match, country, null));
      return { result, fresh: false, retryAfterSeconds: null };
    }
    const message = faultMessage(outcome.code, format);
    if (lastKnownGood !== null) {
      const warning = componentError(
        outcome.code,
        `${message}; this is the last confirmed result, checked at ${lastKnownGood.checkedAt}`,
      );
      const served = { cached: true, stale: true, warning };
      const result = verdictResult(
        input,
        format,
        lastKnownGood,
        served,
        matchOf(match, country, lastKnownGood),
      );
      return { result, fresh: false, retryAfterSeconds: null };
    }
    const error = componentError(outcome.code, message);
    const result = unavailableResult(input, format, error, matchOf(match, country, null));
    return { result, fresh: false, retryAfterSeconds };
  };

  return {
    async plan(input, match = null) {
      const format = checkVatFormat(input);
      if (!format.ok) {
        const result = rejectedResult(input, format, matchOf(match, format.countryCode, null));
        return { kind: "answered", result };
      }
      const startedAt = performance.now();
      const source = authorityOf(format.prefix);
      const authority = upstreams[source];
      const uncheckable = uncheckableReason(format, enabled);
      if (authority === null || uncheckable !== null) {
        const error = componentError(
          "service_unavailable",
          uncheckable ?? AUTHORITIES[source].disabledMessage,
        );
        const result = unavailableResult(input, format, error, matchOf(match, format.countryCode, null));
        return { kind: "answered", result };
      }
      const hit = await cache.get(format.vatNumber);
      options.onCacheLookup?.(hit === null ? "miss" : hit.state === "fresh" ? "hit" : "stale");
      const upstream = { kind: "upstream" as const, input, format, source, authority, match, startedAt };
      if (hit?.state === "fresh") {
        const served = { cached: true, stale: false, warning: null };
        const matched = matchOf(match, format.countryCode, hit.verdict);
        const result = verdictResult(input, format, hit.verdict, served, matched);
        if (traderFor(match, format.prefix) === null) return { kind: "answered", result };
        return { ...upstream, lastKnownGood: null, freshCopy: result };
      }
      const lastKnownGood = hit?.state === "stale" ? hit.verdict : null;
      return { ...upstream, lastKnownGood, freshCopy: null };
    },

    async resolve(plan, resolveOptions = {}) {
      const started = performance.now();
      const { format, authority } = plan;
      const lowest = resolveOptions.lowest === true;
      const background = resolveOptions.background === true || lowest;
      const lastKnownGood = resolveOptions.staleFallback === false ? null : plan.lastKnownGood;
      const budget = budgetFrom(plan.startedAt, background ? backgroundDeadlineMs : deadlineMs);
      const trader = traderFor(plan.match, format.prefix);
      // A call with trader details answers those details: only requests with the same ones share it.
      const key = trader === null ? format.vatNumber : `${format.vatNumber} ${JSON.stringify(trader)}`;
      const urgency: Urgency = { urgent: !background, last: lowest };
      const flight = flights.run(key, () =>
        fly(format, trader, authority, budget, urgency, resolveOptions.owner).finally(() => {
          if (urgencies.get(key) === urgency) urgencies.delete(key);
        }),
      );
      // An interactive request that joins a background call makes it urgent for a slot; a
      // batch item that joins a monitor's check takes it out of the last place.
      if (!flight.shared) urgencies.set(key, urgency);
      else {
        const joined = urgencies.get(key);
        if (joined && !background) joined.urgent = true;
        if (joined && !lowest) joined.last = false;
      }
      // The flight keeps to its own budget; a joiner whose budget ends sooner stops waiting, and
      // so does an interactive request holding a copy to serve once it has waited `staleAfterMs`.
      const copy = lastKnownGood !== null || plan.freshCopy !== null;
      const waitMs =
        !copy || background ? budget.remainingMs() : Math.min(budget.remainingMs(), staleAfterMs);
      const report =
        flight.shared || copy ? await settleWithin(flight.promise, waitMs) : await flight.promise;
      const outcome = report?.outcome ?? fault(AUTHORITIES[plan.source].timeoutCode, "DEADLINE");
      return {
        ...answer({ ...plan, lastKnownGood }, outcome),
        upstream: {
          attempts: flight.shared ? 0 : (report?.attempts ?? 0),
          ms: performance.now() - started,
          detail: outcome.kind === "fault" ? outcome.detail : null,
          shared: flight.shared,
          path: outcome.path ?? null,
        },
      };
    },

    matchAnswer(result, match) {
      if (match === null) return null;
      const country = result.country_code ?? "";
      const registered = result.valid ? { name: result.name, address: result.address } : null;
      return matchTrader(match, registered, authorityCodesOf(result.match), country, legalForms.of(country));
    },

    staleDuringKnownOutage(plan) {
      const reported = plan.lastKnownGood === null ? null : reportedFault(plan.format);
      return reported === null ? null : answer(plan, reported).result;
    },
  };
}
