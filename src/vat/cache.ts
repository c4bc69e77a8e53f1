import { Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Clock } from "../kernel/clock.ts";
import { describeFailure } from "../kernel/failure.ts";
import type { LogFields } from "../kernel/log.ts";
import { withDeadline } from "../store/deadline.ts";
import { StoreError } from "../store/errors.ts";
import type { KeyValueStore } from "../store/kv.ts";
import { AUTHORITY_SOURCES } from "./authorities.ts";
import type { UpstreamVerdict } from "./upstream.ts";

/** `fresh`: within the fresh period, serve as is. `stale`: last-known-good only. */
export type CacheState = "fresh" | "stale";

export type CachedVerdict = {
  /** The verdict as the authority gave it, its `checkedAt` and `consultationNumber` included. */
  verdict: UpstreamVerdict;
  state: CacheState;
};

/**
 * Why the cache answered a miss or dropped a write: the store failed, was too slow, or held
 * something unreadable; or the verdict's `checkedAt` was not a timestamp.
 */
export type CacheFault = {
  operation: "get" | "put";
  reason: "store_error" | "timeout" | "corrupt_entry" | "invalid_verdict";
};

export interface VatCache {
  /** The cached verdict for a normalized VAT number, or null on a miss or a store outage. */
  get(vatNumber: string): Promise<CachedVerdict | null>;
  /**
   * Caches a definitive verdict (faults cannot be passed), without its match codes: those
   * answer the details one call asked about, so a cached verdict comes back with none. Resolves once stored or given up
   * on; never rejects. A verdict already older than the last-known-good period is not stored.
   */
  put(vatNumber: string, verdict: UpstreamVerdict): Promise<void>;
}

export type VatCacheOptions = {
  store: KeyValueStore;
  clock: Clock;
  /** Receives one `vat_cache_fault` event per fault, e.g. `logger.warn`. */
  log: (event: string, fields: LogFields) => void;
  /** Called once per fault, for metrics. */
  onFault?: (fault: CacheFault) => void;
  /** How long a verdict is served as fresh after it was checked; defaults to 24 hours. */
  freshTtlSeconds?: number;
  /** How long it is kept as last-known-good after it was checked; defaults to 30 days. */
  lkgTtlSeconds?: number;
  /** The most a store call may add to a request before it counts as an outage; defaults to 150. */
  timeoutMs?: number;
};

export const DEFAULT_FRESH_TTL_SECONDS = 24 * 60 * 60;
export const DEFAULT_LKG_TTL_SECONDS = 30 * 24 * 60 * 60;
export const DEFAULT_CACHE_TIMEOUT_MS = 150;

const nullableString = t.Union([t.String(), t.Null()]);

// The stored form. Times are epoch milliseconds: freshness is a comparison with the clock.
// Bump the key version when this changes incompatibly; old entries then simply expire.
const CacheEntrySchema = t.Object({
  value: t.Object({
    kind: t.Literal("verdict"),
    valid: t.Boolean(),
    name: nullableString,
    address: nullableString,
    // A full timestamp, as the response schema requires of `checked_at`: an entry written by
    // something else (an older version, another environment) must not break a response.
    checkedAt: t.String({
      pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$",
    }),
    consultationNumber: nullableString,
    source: t.Union(AUTHORITY_SOURCES.map((source) => t.Literal(source))),
  }),
  checkedAt: t.Number(),
  freshUntil: t.Number(),
  staleUntil: t.Number(),
});

/** A verdict as stored: without match codes, which belong to the one call that asked for them. */
type StoredVerdict = Omit<UpstreamVerdict, "traderMatch">;
type CacheEntry = { value: StoredVerdict; checkedAt: number; freshUntil: number; staleUntil: number };

const keyFor = (vatNumber: string) => `vat:v1:${vatNumber}`;

/**
 * The VAT verdict cache: one entry per normalized VAT number, fresh for `freshTtlSeconds`
 * and kept as last-known-good until `lkgTtlSeconds` after the authority checked it. The
 * store is an optimisation, never a dependency: when it fails, is slow or holds garbage, a
 * get is a miss and a put is dropped, each within `timeoutMs`, logged and reported.
 */
export function createVatCache(options: VatCacheOptions): VatCache {
  const { store, clock, log, onFault } = options;
  const freshMs =
    positiveSeconds(options.freshTtlSeconds ?? DEFAULT_FRESH_TTL_SECONDS, "freshTtlSeconds") * 1000;
  const lkgMs = positiveSeconds(options.lkgTtlSeconds ?? DEFAULT_LKG_TTL_SECONDS, "lkgTtlSeconds") * 1000;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CACHE_TIMEOUT_MS;
  if (lkgMs < freshMs) throw new RangeError("lkgTtlSeconds must be at least freshTtlSeconds");

  const fault = (operation: CacheFault["operation"], reason: CacheFault["reason"], error: unknown) => {
    log("vat_cache_fault", { operation, reason, ...describeFailure(error) });
    onFault?.({ operation, reason });
  };
  // A store outage fails every cache call: its start and its end are logged, each call is
  // only counted (onFault), so an outage does not flood the log.
  let storeDown = false;
  const storeAnswered = () => {
    if (!storeDown) return;
    storeDown = false;
    log("vat_cache_store_recovered", {});
  };
  const storeFault = (operation: CacheFault["operation"], error: unknown) => {
    const reason = error instanceof StoreError && error.failure === "timeout" ? "timeout" : "store_error";
    if (storeDown) {
      onFault?.({ operation, reason });
      return;
    }
    storeDown = true;
    fault(operation, reason, error);
  };

  return {
    async get(vatNumber) {
      let raw: string | null;
      try {
        raw = await withDeadline(store.get(keyFor(vatNumber)), timeoutMs, "VAT cache get");
        storeAnswered();
      } catch (error) {
        storeFault("get", error);
        return null;
      }
      if (raw === null) return null;
      const entry = decode(raw);
      if (entry === null) {
        fault("get", "corrupt_entry", new Error(`unreadable entry of ${raw.length} characters`));
        return null;
      }
      const now = clock.now();
      if (now >= entry.staleUntil) return null;
      const verdict = { ...entry.value, traderMatch: null };
      return { verdict, state: now < entry.freshUntil ? "fresh" : "stale" };
    },

    async put(vatNumber, verdict) {
      const checkedAt = Date.parse(verdict.checkedAt);
      if (Number.isNaN(checkedAt)) {
        fault("put", "invalid_verdict", new Error(`checkedAt is not a timestamp: ${verdict.checkedAt}`));
        return;
      }
      const { kind, valid, name, address, consultationNumber, source } = verdict;
      const entry: CacheEntry = {
        value: { kind, valid, name, address, checkedAt: verdict.checkedAt, consultationNumber, source },
        checkedAt,
        freshUntil: checkedAt + freshMs,
        staleUntil: checkedAt + lkgMs,
      };
      const ttlSeconds = Math.min(Math.ceil((entry.staleUntil - clock.now()) / 1000), lkgMs / 1000);
      if (ttlSeconds <= 0) return;
      try {
        await withDeadline(
          store.set(keyFor(vatNumber), JSON.stringify(entry), ttlSeconds),
          timeoutMs,
          "VAT cache put",
        );
        storeAnswered();
      } catch (error) {
        storeFault("put", error);
      }
    },
  };
}

function decode(raw: string): CacheEntry | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  return Value.Check(CacheEntrySchema, parsed) ? parsed : null;
}

function positiveSeconds(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
