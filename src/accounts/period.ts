/** The billing period: a calendar month in UTC, resetting at 00:00 UTC on the 1st. */
export type Period = {
  /** `YYYY-MM-01`, the key of the month in the usage table. */
  month: string;
  startMs: number;
  /** Start of the next period. */
  resetMs: number;
};

export function periodAt(nowMs: number): Period {
  const now = new Date(nowMs);
  const year = now.getUTCFullYear();
  const monthIndex = now.getUTCMonth();
  const startMs = Date.UTC(year, monthIndex, 1);
  const resetMs = Date.UTC(year, monthIndex + 1, 1);
  const month = `${year.toString().padStart(4, "0")}-${(monthIndex + 1).toString().padStart(2, "0")}-01`;
  return { month, startMs, resetMs };
}
