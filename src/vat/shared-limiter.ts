import { raceDeadline } from "../kernel/deadline.ts";
import { describeFailure } from "../kernel/failure.ts";
import type { Logger } from "../kernel/log.ts";
import { StoreError } from "../store/errors.ts";
import type { Lease, LeaseStore } from "./leases.ts";
import { type Caller, INTERACTIVE, type KeyedLimiter } from "./limiter.ts";

export type SharedLimiterOptions = {
  /** This instance's own limiter, with the same cap: it orders the callers here and bounds the line. */
  local: KeyedLimiter;
  leases: LeaseStore;
  /** Slots per key across every instance. */
  cap: number;
  /** How long a lease lasts unless renewed: a dead instance's slots come back this much later. */
  leaseMs: number;
  /** The most one step of the lease store may take before it counts as failed. */
  timeoutMs: number;
  log: Logger;
  /** Told of every failure of the lease store (the limiter logs the first of a run). */
  onFailure?: () => void;
  /** Jitter source for the waits between tries; defaults to Math.random. */
  random?: () => number;
};

/** The first wait between two tries for a lease; it doubles per try up to the caller's ceiling. */
const FIRST_POLL_MS = 10;
/** Interactive callers look again often, so they tend to come before other instances' batch items. */
const URGENT_POLL_CEILING_MS = 50;
const POLL_CEILING_MS = 200;

/**
 * A limiter whose slots are held across instances: a caller first takes a slot of this
 * instance's own limiter (which keeps its order of callers), then a lease on one of the
 * key's `cap` shared slots, trying again with backoff until its wait is over. A held lease is
 * renewed every third of `leaseMs`; it is given back before the local slot is released, so
 * the next caller here does not find it still taken. When the lease store fails, the caller
 * goes ahead on the local slot alone: the cap is then per instance, as without a shared store,
 * rather than refusing work.
 */
export function createSharedLimiter(options: SharedLimiterOptions): KeyedLimiter {
  const { local, leases, cap, leaseMs, timeoutMs, log } = options;
  const random = options.random ?? Math.random;
  let failing = false;

  /** A step of the lease store, bounded by `timeoutMs`. */
  const step = <T>(work: Promise<T>, what: string): Promise<T> =>
    raceDeadline(work, timeoutMs, () => {
      throw new StoreError("timeout", `${what} took longer than ${timeoutMs} ms`);
    });

  const failed = (error: unknown) => {
    options.onFailure?.();
    if (!failing) log.warn("shared_slots_failed", describeFailure(error));
    failing = true;
  };

  /** A lease, null when every slot is held, or "failed" when the store did not answer in time. */
  const take = async (key: string): Promise<Lease | null | "failed"> => {
    const taking = leases.take(`slots:${key}`, cap, leaseMs);
    try {
      const lease = await step(taking, "taking a lease");
      if (failing) log.info("shared_slots_recovered");
      failing = false;
      return lease;
    } catch (error) {
      failed(error);
      // A lease that arrives after its caller stopped waiting goes straight back.
      taking.then((late) => late?.give()).catch(() => {});
      return "failed";
    }
  };

  const holding = (lease: Lease, release: () => void): (() => void) => {
    const renewal = setInterval(() => {
      step(lease.renew(leaseMs), "renewing a lease").catch(failed);
    }, leaseMs / 3);
    renewal.unref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      clearInterval(renewal);
      step(lease.give(), "giving a lease back").catch(failed).finally(release);
    };
  };

  return {
    async acquire(key, waitMs, caller: Caller = INTERACTIVE) {
      const started = performance.now();
      const release = await local.acquire(key, waitMs, caller);
      if (release === null) return null;
      for (let tries = 0; ; tries++) {
        const lease = await take(key);
        if (lease === "failed") return release;
        if (lease !== null) return holding(lease, release);
        const left = waitMs - (performance.now() - started);
        if (left <= 0) {
          release();
          return null;
        }
        const ceiling = Math.min(
          caller.urgent() ? URGENT_POLL_CEILING_MS : POLL_CEILING_MS,
          FIRST_POLL_MS * 2 ** tries,
        );
        await Bun.sleep(Math.min(left, ceiling / 2 + (random() * ceiling) / 2));
      }
    },
    load: (key) => local.load(key),
  };
}
