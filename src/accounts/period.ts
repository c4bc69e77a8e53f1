/** The billing period: a calendar month in UTC, resetting at 00:00 UTC on the 1st. */
export type Period = {
  /** `YYYY-MM-01`, the key of the month in the usage table. */
  month: string;
  startMs: number;
  /** Start of the next period. */
  resetMs: number;
  /** `startMs` and `resetMs` as ISO 8601 timestamps, for responses and headers. */
  startAt: string;
  resetAt: string;
};

// Every request asks for the current period; it changes once a month.
let last: Period | null = null;

export function periodAt(nowMs: number): Period {
  if (last && nowMs >= last.startMs && nowMs < last.resetMs) return last;
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const monthIndex = now.getUTCMonth();
  const startMs = Date.UTC(year, monthIndex, 1);
  const resetMs = Date.UTC(year, monthIndex + 1, 1);
  const month = `${year.toString().padStart(4, "0")}-${(monthIndex + 1).toString().padStart(2, "0")}-01`;
  last = {
    month,
    startMs,
    resetMs,
    startAt: new Date(startMs).toISOString(),
    resetAt: new Date(resetMs).toISOString(),
  };
  return last;
}

/** The ISO timestamp of a period's reset, from the reset time itself. */
export function resetAtOf(resetMs: number): string {
  return periodAt(resetMs - 1).resetAt;
}
