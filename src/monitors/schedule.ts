import { retryDelayMs } from "../batches/processor.ts";

/**
 * When a monitor is checked: pure functions of its times (milliseconds of the service's clock)
 * and a source of randomness, so the schedule can be read and tested apart from the worker.
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * The next regular round after a check finished at `nowMs`. After the first answer, a point
 * drawn at random within the first interval: monitors created together (a list of 10,000)
 * spread evenly over it instead of coming back together every `intervalDays`. After that, one
 * interval after the round that was due (`dueMs`), so each keeps its place in the cycle
 * however late a check ran (a backlog, an outage, a quota wait); a round missed entirely
 * (the service was down longer than an interval) is skipped, not caught up. A round still in
 * the future (the check was asked for ahead of it) stays where it is.
 */
export function nextRound(
  round: { dueMs: number; intervalDays: number; firstAnswer: boolean },
  nowMs: number,
  random: () => number = Math.random,
): number {
  const interval = round.intervalDays * DAY_MS;
  if (round.firstAnswer) return nowMs + Math.max(1, Math.ceil((1 - random()) * interval));
  if (round.dueMs > nowMs) return round.dueMs;
  const passed = Math.floor((nowMs - round.dueMs) / interval) + 1;
  return round.dueMs + passed * interval;
}

/**
 * The delay before a check that met an outage is tried again, after `attempts` such failures
 * of this round, the first of them at `sinceMs`: as a batch item waits (from a few seconds,
 * doubling to 5 minutes, with jitter) within `windowSeconds` of the first; then about hourly
 * (jittered) until the authority answers — a monitor has no deadline, and a member state down
 * for a night is not worth a call every 5 minutes.
 */
export function outageDelayMs(
  attempts: number,
  sinceMs: number,
  nowMs: number,
  windowSeconds: number,
  random: () => number = Math.random,
): number {
  if (nowMs - sinceMs < windowSeconds * 1000) return retryDelayMs(attempts, windowSeconds, random);
  return HOUR_MS / 2 + random() * HOUR_MS;
}

/**
 * When a check that found its key's quota used up is taken up again: within the hour after the
 * quota resets, at a random point, so a key's monitors that waited together do not all come
 * back at 00:00 UTC on the 1st.
 */
export function afterQuotaReset(resetMs: number, random: () => number = Math.random): number {
  return resetMs + Math.floor(random() * HOUR_MS);
}
