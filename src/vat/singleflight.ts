/** A call in flight: its outcome, and whether this caller joined one that was already running. */
export type Flight<T> = { promise: Promise<T>; shared: boolean };

/** Coalesces concurrent calls that have the same key into one. */
export interface Singleflight<T> {
  /**
   * Starts `work` for `key`, or joins the call for `key` already in flight. Every caller of one
   * flight gets the same outcome, a rejection included. Nothing is remembered once the flight
   * settles: the next call for `key` runs `work` again.
   */
  run(key: string, work: () => Promise<T>): Flight<T>;
}

/** An in-process singleflight: coalescing is per instance, which is where concurrent duplicates meet. */
export function createSingleflight<T>(): Singleflight<T> {
  const inFlight = new Map<string, Promise<T>>();
  return {
    run(key, work) {
      const running = inFlight.get(key);
      if (running !== undefined) return { promise: running, shared: true };
      const promise = Promise.resolve()
        .then(work)
        .finally(() => inFlight.delete(key));
      inFlight.set(key, promise);
      return { promise, shared: false };
    },
  };
}
