/** Gives a slot back. Calling it again has no effect. */
export type Release = () => void;

export type KeyedLimiterOptions = {
  /** Slots per key: the most calls for one key running at the same time. */
  maxConcurrent: number;
  /** The most callers per key waiting for a slot; one more is refused at once. */
  maxWaiting: number;
};

/** Who waits for a slot. By default an urgent caller (an interactive request). */
export type Caller = {
  /**
   * Asked when a slot comes free, so a waiting caller can become urgent (a request for the
   * same number joined a batch item's call).
   */
  urgent: () => boolean;
  /** Whose work it is (an API key): callers that are not urgent take turns by owner. */
  owner?: string;
  /**
   * Asked like `urgent`: whether it yields to every other caller that is not urgent either (a
   * monitor's scheduled check behind batch items), until a caller of theirs joins its call.
   */
  last?: () => boolean;
};

/** An interactive request: the default caller. */
export const INTERACTIVE: Caller = { urgent: () => true };

/**
 * Bounds concurrent work per key, with a wait for a slot in which urgent callers (interactive
 * requests) go before the others (batch items), those before the callers that go last
 * (monitors' checks), and within each of the last two callers take turns by owner, so one
 * key's large batch does not keep another key's items waiting. The line of urgent callers is
 * bounded; the others are bounded by whoever sends them.
 */
export interface KeyedLimiter {
  /**
   * A slot for `key`: at once when one is free, else after waiting at most `waitMs` in line.
   * Null when the line is full or no slot came free in time; the caller must not go ahead.
   */
  acquire(key: string, waitMs: number, caller?: Caller): Promise<Release | null>;
  /** Slots taken and callers waiting for `key`, for metrics and tests. */
  load(key: string): { active: number; waiting: number };
}

type Waiter = { grant: (release: Release) => void; caller: Caller };
/** `served`: per owner, when a slot of this line last went to it (a count of grants). */
type Line = { active: number; waiting: Waiter[]; served: Map<string, number>; grants: number };

/**
 * The waiter a freed slot goes to: the longest-waiting urgent caller; else, among the callers
 * that do not go last if there are any, the longest waiter of the owner served longest ago.
 */
function nextWaiter(line: Line): number {
  const urgent = line.waiting.findIndex((waiter) => waiter.caller.urgent());
  if (urgent >= 0) return urgent;
  const before = line.waiting.some((waiter) => !waiter.caller.last?.());
  let chosen = -1;
  let servedAt = Number.POSITIVE_INFINITY;
  line.waiting.forEach((waiter, index) => {
    if (before && waiter.caller.last?.()) return;
    const at = line.served.get(waiter.caller.owner ?? "") ?? -1;
    if (at < servedAt) {
      servedAt = at;
      chosen = index;
    }
  });
  return chosen;
}

/**
 * An in-process limiter per key. A released slot passes straight to the next waiter
 * (`nextWaiter`), so a newcomer never overtakes a caller of its kind.
 */
export function createKeyedLimiter({ maxConcurrent, maxWaiting }: KeyedLimiterOptions): KeyedLimiter {
  if (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1) {
    throw new RangeError(`maxConcurrent must be a positive integer, got ${maxConcurrent}`);
  }
  if (!Number.isSafeInteger(maxWaiting) || maxWaiting < 0) {
    throw new RangeError(`maxWaiting must be a non-negative integer, got ${maxWaiting}`);
  }
  const lines = new Map<string, Line>();

  const lineOf = (key: string): Line => {
    const existing = lines.get(key);
    if (existing !== undefined) return existing;
    const created: Line = { active: 0, waiting: [], served: new Map(), grants: 0 };
    lines.set(key, created);
    return created;
  };

  const releaseFor = (key: string, line: Line): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const [next] = line.waiting.length > 0 ? line.waiting.splice(nextWaiter(line), 1) : [];
      if (next !== undefined) {
        line.grants += 1;
        line.served.set(next.caller.owner ?? "", line.grants);
        next.grant(releaseFor(key, line));
        return;
      }
      line.active -= 1;
      if (line.active === 0) lines.delete(key);
    };
  };

  return {
    acquire(key, waitMs, caller = INTERACTIVE) {
      const line = lineOf(key);
      if (line.active < maxConcurrent) {
        line.active += 1;
        return Promise.resolve(releaseFor(key, line));
      }
      const full =
        caller.urgent() && line.waiting.filter((waiter) => waiter.caller.urgent()).length >= maxWaiting;
      if (full || waitMs <= 0) return Promise.resolve(null);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          grant: (release) => {
            clearTimeout(timer);
            resolve(release);
          },
          caller,
        };
        const timer = setTimeout(() => {
          line.waiting.splice(line.waiting.indexOf(waiter), 1);
          resolve(null);
        }, waitMs);
        line.waiting.push(waiter);
      });
    },
    load(key) {
      const line = lines.get(key);
      return { active: line?.active ?? 0, waiting: line?.waiting.length ?? 0 };
    },
  };
}
