import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { type Static, t } from "elysia";
import type { Clock } from "../kernel/clock.ts";
import { stringEnum } from "../kernel/enum-schema.ts";
import { describeFailure } from "../kernel/failure.ts";
import type { Logger } from "../kernel/log.ts";
import { withDeadline } from "../store/deadline.ts";
import type { KeyValueStore } from "../store/kv.ts";
import { RegisterStatusSchema } from "./registers.ts";
import { createSingleflight } from "./singleflight.ts";
import type { ViesStatusClient } from "./vies/status.ts";

export const StatusCountrySchema = t.Object(
  {
    country_code: t.String({
      description: "ISO 3166-1 alpha-2 code: GR for Greece (VIES code EL), GB for Northern Ireland (XI)",
    }),
    vies_code: t.String({
      description: "the code VIES uses for the member state: EL for Greece, XI for Northern Ireland",
    }),
    availability: stringEnum(["available", "unavailable", "unknown"], {
      description:
        "available or unavailable as VIES reports it; unknown when VIES does not monitor the member state. Advisory: an available state can still fail a check and an unavailable one can answer",
    }),
    raw: t.String({
      description:
        "the availability exactly as VIES reported it: Available, Unavailable or Monitoring Disabled",
    }),
  },
  { title: "ViesCountryStatus" },
);

export const StatusSchema = t.Object(
  {
    available: t.Boolean({
      description: "whether VIES itself (the central service, not the member states) reports that it is up",
    }),
    checked_at: t.String({ format: "date-time", description: "when VIES was asked for this status" }),
    cached: t.Boolean({
      description: "served from the status cache instead of asking VIES for this request",
    }),
    countries: t.Array(StatusCountrySchema, { description: "one entry per member state VIES reports on" }),
    registers: t.Array(RegisterStatusSchema, {
      description:
        "the national services beside VIES (GB, CH, NO), as this instance last found them: none of them publishes its availability",
    }),
  },
  {
    title: "ViesStatus",
    description:
      "Live VIES availability per member state, cached for 60 seconds, and the national services beside it",
  },
);
/** GET /status's body. */
export type StatusResponse = Static<typeof StatusSchema>;
/** What VIES's status says; the national registers are added by whoever serves it. */
export type StatusBody = Omit<StatusResponse, "registers">;

/** What VIES's status says a check would meet: the code it is answered with, and the cause. */
export type ReportedOutage =
  | { code: "service_unavailable"; detail: "STATUS_VIES_UNAVAILABLE" }
  | { code: "member_state_unavailable"; detail: "STATUS_UNAVAILABLE" };

export type StatusOutcome =
  | { ok: true; body: StatusBody }
  /** VIES's status endpoint could not be read; `detail` is the client's cause (`NETWORK`, `HTTP_503`...). */
  | { ok: false; detail: string };

export interface StatusService {
  /** The status for GET /status: cached for the TTL, shared across instances through the store. Never throws. */
  get(): Promise<StatusOutcome>;
  /**
   * The outage VIES currently reports for a check of the member state with this VIES code
   * (`EL`, `XI`): VIES itself down, the member state unavailable, or none. Answers from memory
   * only, so it costs a VAT check nothing; when what it holds is older than the TTL it answers
   * null (status is advisory) and refreshes in the background.
   */
  reportedOutage(viesCode: string): ReportedOutage | null;
}

export type StatusServiceOptions = {
  client: ViesStatusClient;
  store: KeyValueStore;
  clock: Clock;
  log: Logger;
  /** How long a status is served before VIES is asked again; defaults to 60. */
  ttlSeconds?: number;
  /** Give up on VIES's status endpoint after this long; defaults to 5 000. */
  timeoutMs?: number;
  /** The most a store call may add before it counts as an outage; defaults to 150. */
  storeTimeoutMs?: number;
  /** After a failed fetch, VIES is not asked again for this long; defaults to 10. */
  failureTtlSeconds?: number;
};

export const DEFAULT_STATUS_TTL_SECONDS = 60;
export const DEFAULT_STATUS_TIMEOUT_MS = 5_000;
export const DEFAULT_STATUS_FAILURE_TTL_SECONDS = 10;
const DEFAULT_STORE_TIMEOUT_MS = 150;

// The stored form, shared by every instance. Bump the key version when it changes incompatibly.
const SnapshotSchema = Type.Object({
  vowAvailable: Type.Boolean(),
  countries: Type.Array(Type.Object({ countryCode: Type.String(), availability: Type.String() })),
  checkedAt: Type.Number(),
});
type Snapshot = Static<typeof SnapshotSchema>;

const STORE_KEY = "vies:status:v1";

/** VIES codes that are not ISO codes; every other VIES code is its own ISO code. */
const ISO_CODE: Record<string, string> = { EL: "GR", XI: "GB" };

const AVAILABILITY: Record<string, StatusBody["countries"][number]["availability"]> = {
  Available: "available",
  Unavailable: "unavailable",
};

type Refresh = { ok: true; snapshot: Snapshot; fetched: boolean } | { ok: false; detail: string };

function toBody(snapshot: Snapshot, cached: boolean): StatusBody {
  return {
    available: snapshot.vowAvailable,
    checked_at: new Date(snapshot.checkedAt).toISOString(),
    cached,
    countries: snapshot.countries.map(({ countryCode, availability }) => ({
      country_code: ISO_CODE[countryCode] ?? countryCode,
      vies_code: countryCode,
      availability: AVAILABILITY[availability] ?? "unknown",
      raw: availability,
    })),
  };
}

function decode(raw: string): Snapshot | null {
  try {
    const parsed: unknown = JSON.parse(raw);
    return Value.Check(SnapshotSchema, parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * The VIES status behind GET /status and the VAT service's fast failure for member states VIES
 * reports down. One fetch at a time per instance; a fetched status is shared with the other
 * instances through the store; a failed fetch is not repeated for `failureTtlSeconds`, so an
 * unreachable endpoint is not hammered by an unauthenticated route.
 */
export function createStatusService(options: StatusServiceOptions): StatusService {
  const { client, store, clock, log } = options;
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_STATUS_TTL_SECONDS;
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new RangeError(`ttlSeconds must be a positive integer, got ${ttlSeconds}`);
  }
  const ttlMs = ttlSeconds * 1000;
  // A failure is never remembered longer than a status would be: with a short TTL, the
  // endpoint is asked again as soon as a good answer would have been.
  const failureTtlMs =
    Math.min(options.failureTtlSeconds ?? DEFAULT_STATUS_FAILURE_TTL_SECONDS, ttlSeconds) * 1000;
  const timeoutMs = options.timeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS;
  const storeTimeoutMs = options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const flights = createSingleflight<Refresh>();
  let snapshot: Snapshot | null = null;
  let failure: { at: number; detail: string } | null = null;

  const isFresh = (held: Snapshot) => clock.now() - held.checkedAt < ttlMs;
  const recentFailure = () => (failure !== null && clock.now() - failure.at < failureTtlMs ? failure : null);
  const storeFault = (operation: "get" | "put", error: unknown) =>
    log.warn("vies_status_store_fault", { operation, ...describeFailure(error) });

  const readShared = async (): Promise<Snapshot | null> => {
    try {
      const raw = await withDeadline(store.get(STORE_KEY), storeTimeoutMs, "VIES status get");
      return raw === null ? null : decode(raw);
    } catch (error) {
      storeFault("get", error);
      return null;
    }
  };

  const writeShared = async (fetched: Snapshot): Promise<void> => {
    try {
      await withDeadline(
        store.set(STORE_KEY, JSON.stringify(fetched), ttlSeconds),
        storeTimeoutMs,
        "VIES status put",
      );
    } catch (error) {
      storeFault("put", error);
    }
  };

  const refresh = async (): Promise<Refresh> => {
    const shared = await readShared();
    if (shared !== null && isFresh(shared)) {
      snapshot = shared;
      return { ok: true, snapshot: shared, fetched: false };
    }
    const fetched = await client.fetchStatus(timeoutMs);
    if (!fetched.ok) {
      failure = { at: clock.now(), detail: fetched.detail };
      log.warn("vies_status_unreachable", { detail: fetched.detail });
      return { ok: false, detail: fetched.detail };
    }
    failure = null;
    const next: Snapshot = {
      vowAvailable: fetched.vowAvailable,
      countries: fetched.countries,
      checkedAt: clock.now(),
    };
    snapshot = next;
    await writeShared(next);
    return { ok: true, snapshot: next, fetched: true };
  };

  return {
    async get() {
      if (snapshot !== null && isFresh(snapshot)) return { ok: true, body: toBody(snapshot, true) };
      const failed = recentFailure();
      if (failed !== null) return { ok: false, detail: failed.detail };
      const outcome = await flights.run("status", refresh).promise;
      return outcome.ok ? { ok: true, body: toBody(outcome.snapshot, !outcome.fetched) } : outcome;
    },

    reportedOutage(viesCode) {
      if (snapshot !== null && isFresh(snapshot)) {
        if (!snapshot.vowAvailable) return { code: "service_unavailable", detail: "STATUS_VIES_UNAVAILABLE" };
        const unavailable = snapshot.countries.some(
          (country) => country.countryCode === viesCode && country.availability === "Unavailable",
        );
        return unavailable ? { code: "member_state_unavailable", detail: "STATUS_UNAVAILABLE" } : null;
      }
      if (recentFailure() === null) {
        flights.run("status", refresh).promise.catch((error: unknown) => {
          log.error("vies_status_refresh_failed", describeFailure(error));
        });
      }
      return null;
    },
  };
}
