import type { ViesFake } from "../fakes/vies.ts";

/** The VIES fake's calls per number (prefix and number) since `from`, an index into its call log. */
export function callsPerNumber(vies: ViesFake, from: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of vies.calls.log.slice(from)) {
    const number = `${call.countryCode}${call.vatNumber}`;
    counts.set(number, (counts.get(number) ?? 0) + 1);
  }
  return counts;
}
