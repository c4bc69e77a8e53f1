import type { Clock } from "../../src/kernel/clock.ts";

export type ManualClock = Clock & {
  /** Moves time forward by `ms`. */
  advance(ms: number): void;
};

/** A clock that only moves when told to. */
export function manualClock(start = Date.UTC(2025, 0, 15, 12, 0, 0)): ManualClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}
