import type { ViesFake } from "../fakes/vies.ts";

/**
 * The VIES fake's calls per number (prefix and number) since `from`, an index into its call
 * log; of `only` these numbers when given (on a shared database, other work may ask too).
 */
export function callsPerNumber(vies: ViesFake, from: number, only?: string[]): Map<string, number> {
  const wanted = only === undefined ? null : new Set(only);
  const counts = new Map<string, number>();
  for (const call of vies.calls.log.slice(from)) {
    const number = `${call.countryCode}${call.vatNumber}`;
    if (wanted !== null && !wanted.has(number)) continue;
    counts.set(number, (counts.get(number) ?? 0) + 1);
  }
  return counts;
}
