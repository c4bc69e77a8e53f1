/**
 * Keeps the calls to one upstream under a rate: at most `perWindow` start in any window of
 * `windowMs`. A caller is given the earliest start that keeps to it, in the order callers came,
 * and waits for it; one that would have to wait longer than it may is refused at once and takes
 * no place in the line.
 */
export interface Pacer {
  /** Resolves true at the caller's start, at once or after at most `waitMs`; false at once when that is too long. */
  acquire(waitMs: number): Promise<boolean>;
}

export type PacerOptions = {
  perWindow: number;
  /** Defaults to a minute. */
  windowMs?: number;
  /** Monotonic milliseconds; defaults to `performance.now`. */
  now?: () => number;
};

/** An in-process pacer: the line is this instance's own. */
export function createPacer({
  perWindow,
  windowMs = 60_000,
  now = () => performance.now(),
}: PacerOptions): Pacer {
  if (!Number.isSafeInteger(perWindow) || perWindow < 1) {
    throw new RangeError(`perWindow must be a positive integer, got ${perWindow}`);
  }
  // Start times given out, in order (never decreasing): the last `perWindow` decide the next.
  const starts: number[] = [];
  return {
    async acquire(waitMs) {
      const at = now();
      while (starts.length > 0 && (starts[0] ?? at) <= at - windowMs) starts.shift();
      const bound = starts.length < perWindow ? at : (starts[starts.length - perWindow] ?? at) + windowMs;
      const start = Math.max(at, bound);
      if (start - at > waitMs) return false;
      starts.push(start);
      if (start > at) await Bun.sleep(start - at);
      return true;
    },
  };
}
