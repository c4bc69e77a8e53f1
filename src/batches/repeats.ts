import { MATCH_FIELDS, type MatchRequest } from "../matching/schema.ts";
import { checkVatFormat } from "../vat/format/check-vat-format.ts";
import type { BatchItemInput } from "./schema.ts";

/** The details of a `match`, field by field in one order: equal details, equal text. */
const matchText = (match: MatchRequest | undefined) =>
  match === undefined ? "" : JSON.stringify(MATCH_FIELDS.map((field) => match[field] ?? null));

/**
 * For each item of a list, the index of the list's first item with the same VAT number — as
 * the cache knows it (`de 123 456 789` is `DE123456789`) — and the same `match`, when that is
 * an earlier item: the item is a repeat, answered from that first item's answer. A number the
 * format check rejects is answered locally, so it is never a repeat; neither is an item
 * without a VAT number.
 */
export function repeatsOf(items: readonly BatchItemInput[]): (number | null)[] {
  const firsts = new Map<string, number>();
  return items.map((item, index) => {
    if (item.vat === undefined) return null;
    const format = checkVatFormat(item.vat);
    if (!format.ok) return null;
    const key = `${format.vatNumber} ${matchText(item.match)}`;
    const first = firsts.get(key);
    if (first !== undefined) return first;
    firsts.set(key, index);
    return null;
  });
}
