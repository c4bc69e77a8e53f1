import type { MatchResult } from "../matching/schema.ts";
import { MATCH_FIELDS } from "../matching/schema.ts";
import type { VatResult } from "../vat/schema.ts";
import type { MonitorEventType } from "./schema.ts";

/**
 * What changed between two definitive answers about one number (`valid` true or false in
 * both): the events of a monitor, pure.
 *
 * - `vat.registration_changed`: `valid` turned from true to false, or back. A number that
 *   lapsed has no name, address or match to compare, so nothing else is said of it.
 * - `vat.details_changed`: both registered, and the name or the address differs.
 * - `vat.match_changed`: both registered, the monitor watches `match` details, and the
 *   verdict differs — overall or for a field. Who compared (`by`) is not a verdict.
 */
export function changesBetween(previous: VatResult, current: VatResult): MonitorEventType[] {
  if (previous.valid !== current.valid) return ["vat.registration_changed"];
  if (previous.valid !== true) return [];
  const changes: MonitorEventType[] = [];
  if (previous.name !== current.name || previous.address !== current.address)
    changes.push("vat.details_changed");
  if (previous.match !== null && current.match !== null && verdict(previous.match) !== verdict(current.match))
    changes.push("vat.match_changed");
  return changes;
}

function verdict(match: MatchResult): string {
  return [match.overall, ...MATCH_FIELDS.map((field) => match[field]?.result ?? "")].join(" ");
}

/**
 * Whether `current` is the answer to keep and compare: a definitive one no older than the
 * one kept. A cache can hand back an answer older than the monitor's own last (another
 * instance's slower call landing late): it is not news, and must not undo one.
 */
export function supersedes(previous: VatResult | null, current: VatResult): boolean {
  if (current.valid === null) return false;
  if (previous === null || previous.checked_at === null || current.checked_at === null) return true;
  return Date.parse(current.checked_at) >= Date.parse(previous.checked_at);
}
