import { traderFor } from "../matching/match.ts";
import { checkVatFormat } from "../vat/format/check-vat-format.ts";
import type { BatchItemInput } from "./schema.ts";

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
    // The authority's call is one per number, and per details only where the member state
    // compares them itself: other details are compared here, with any answer of the number.
    const key = `${format.vatNumber} ${JSON.stringify(traderFor(item.match ?? null, format.prefix))}`;
    const first = firsts.get(key);
    if (first !== undefined) return first;
    firsts.set(key, index);
    return null;
  });
}
