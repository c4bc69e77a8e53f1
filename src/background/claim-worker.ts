import { describeFailure } from "../kernel/failure.ts";
import type { LogFields, Logger } from "../kernel/log.ts";
import type { FairShare } from "./fair-share.ts";
import { createPoller } from "./poller.ts";

/** A unit of work found due: whose it is, and how much of it a claim could take. */
export type DueUnit = { keyId: string; due: number };

/** Work this instance leased: whose it is, and the claim whose token holds the lease. */
export type ClaimedWork = { keyId: string; token: string };

/** One look for work: the units due, and how to lease their work. */
export type ClaimRound<Unit extends DueUnit, Work extends ClaimedWork> = {
  due: Unit[];
  /** Leases up to `take` of each wanted unit; the `idle` units were found due with nothing to take. */
  claim(wanted: { unit: Unit; take: number }[], idle: Unit[]): Promise<Work[]>;
};

export type ClaimWorkerOptions<Unit extends DueUnit, Work extends ClaimedWork> = {
  /** Shared fairly among the keys with work, and capped per target. */
  slots: FairShare;
  /** How often work is looked for while there is nothing to do. */
  pollMs: number;
  log: Logger;
  /** The events logged when a look for work fails, and when one unit's work throws. */
  events: { claimFailed: string; workFailed: string };
  /** Runs before the first look for work (and again at the next tick while it fails). */
  prepare(): Promise<void>;
  /** Looks for at most `window` due units, one per key, the keys after `afterKey` first. */
  find(afterKey: string, window: number): Promise<ClaimRound<Unit, Work>>;
  /** What the work may wait for beyond its key's slot (a member state), if anything. */
  target(work: Work): string | undefined;
  /** `untarget`: the work will not wait for its target after all, so its room goes to the next. */
  work(work: Work, untarget: () => void): Promise<void>;
  /** Says which work a `workFailed` line is about. */
  describe(work: Work): LogFields;
  /**
   * Keeps the leases of the work under way alive, every third of `leaseMs`. Work bounded well
   * within its lease by a timeout of its own needs none.
   */
  renewal?: {
    /** How long a claim holds its work. */
    leaseMs: number;
    renew(tokens: string[]): Promise<void>;
    /** The event logged when renewing fails. */
    failed: string;
  };
  /** Gives up the leases on `held`, the work that did not finish in time at stop. */
  release(held: Work[]): Promise<void>;
  /** Resolves once what finished work handed on to be written in bulk is written. */
  flush?(): Promise<void>;
};

/** The claims holding `work`: each token once, however much of the work it holds. */
export const leaseTokens = (work: ClaimedWork[]) => [...new Set(work.map(({ token }) => token))];

/**
 * A background worker that leases due work from the database as its slots free (the keys with
 * work in turn, each within its fair share), keeps the leases of the work under way alive where
 * they need it, and at stop gives up those of work that did not finish in time, so it is taken
 * again at once instead of when its lease runs out.
 */
export function createClaimWorker<Unit extends DueUnit, Work extends ClaimedWork>(
  options: ClaimWorkerOptions<Unit, Work>,
) {
  const { slots, log, events, renewal } = options;
  let started = false;
  /** The key the last claim ended with: the next starts after it. */
  let lastKey = "";
  /** The work under way, by the promise of each. */
  const working = new Map<Promise<void>, Work>();

  const start = (work: Work) => {
    let release = slots.take(work.keyId, options.target(work));
    // Work that will not wait for its target after all (a cache hit) keeps its key's slot but
    // gives the target's room to the next work for it at once.
    const untarget = () => {
      const plain = slots.take(work.keyId);
      release();
      release = plain;
      poller.wake();
    };
    const running = options
      .work(work, untarget)
      .catch((error: unknown) => {
        // Its lease is no longer renewed: it runs out and another attempt picks the work up.
        log.error(events.workFailed, { ...options.describe(work), ...describeFailure(error) });
      })
      .finally(() => {
        release();
        working.delete(running);
        poller.wake();
      });
    working.set(running, work);
  };

  const poller = createPoller({
    intervalMs: options.pollMs,
    onError: (error) => log.error(events.claimFailed, describeFailure(error)),
    async tick() {
      if (!started) {
        await options.prepare();
        started = true;
      }
      if (slots.free <= 0) return false;
      const round = await options.find(lastKey, slots.free);
      if (round.due.length === 0) return false;
      lastKey = round.due.at(-1)?.keyId ?? "";
      const allowed = slots.allowances(round.due.map(({ keyId, due }) => ({ key: keyId, wants: due })));
      const claimed = await round.claim(
        round.due.flatMap((unit) => {
          const take = allowed.get(unit.keyId) ?? 0;
          return take > 0 ? [{ unit, take }] : [];
        }),
        round.due.filter((unit) => unit.due === 0),
      );
      for (const work of claimed) start(work);
      return claimed.length > 0 && slots.free > 0;
    },
  });

  const renewing =
    renewal &&
    setInterval(() => {
      renewal
        .renew(leaseTokens([...working.values()]))
        .catch((error) => log.warn(renewal.failed, describeFailure(error)));
    }, renewal.leaseMs / 3);
  renewing?.unref();

  return {
    start: () => poller.start(),
    /** Looks for work now (some was just added). */
    wake: () => poller.wake(),
    /**
     * Stops claiming, lets the work under way finish for up to `graceMs`, and gives up the
     * leases of what did not, so another instance (or the next start) takes it at once.
     */
    async stop(graceMs: number): Promise<void> {
      await poller.stop();
      clearInterval(renewing);
      await Promise.race([Promise.all(working.keys()), Bun.sleep(graceMs)]);
      await options.flush?.();
      await options.release([...working.values()]).catch(() => {});
    },
  };
}
