import { raceDeadline } from "../kernel/deadline.ts";

/**
 * The time one VAT answer may take, counted from when it was planned. Wall time on the
 * monotonic timer, not the business clock: it bounds how long a caller waits, which only
 * real time can.
 */
export type Budget = {
  /** Milliseconds left; zero or less once spent. */
  remainingMs(): number;
};

/** A budget of `totalMs` starting at `startedAt` (a `performance.now()` reading). */
export function budgetFrom(startedAt: number, totalMs: number): Budget {
  return { remainingMs: () => totalMs - (performance.now() - startedAt) };
}

/** Settles as `work` does, or with `undefined` once `ms` have passed; `work` is not cancelled. */
export function settleWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return Promise.resolve(undefined);
  return raceDeadline(work, ms, () => undefined);
}
