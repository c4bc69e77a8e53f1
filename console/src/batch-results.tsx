import { useState } from "preact/hooks";
import { type BatchItem, detailOf, type ItemVerdict, VERDICT_LABELS, verdictOf } from "./batch-items.ts";

const PAGE_SIZE = 25;

/** A batch's items as a table, a page at a time, filtered by verdict. */
export function BatchResults({ items }: { items: BatchItem[] }) {
  const [filter, setFilter] = useState<ItemVerdict | "all">("all");
  const [page, setPage] = useState(0);
  const verdicts = items.map(verdictOf);
  const counts = new Map<ItemVerdict, number>();
  for (const verdict of verdicts) counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
  const shown = items.filter((_, index) => filter === "all" || verdicts[index] === filter);
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const rows = shown.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);
  const first = shown.length === 0 ? 0 : current * PAGE_SIZE + 1;

  return (
    <div class="results">
      <div class="row">
        <label for="verdict-filter">Show</label>
        <select
          id="verdict-filter"
          value={filter}
          onChange={(event) => {
            setFilter((event.currentTarget as HTMLSelectElement).value as ItemVerdict | "all");
            setPage(0);
          }}
        >
          <option value="all">All ({items.length.toLocaleString()})</option>
          {[...counts.entries()].map(([verdict, count]) => (
            <option key={verdict} value={verdict}>
              {VERDICT_LABELS[verdict]} ({count.toLocaleString()})
            </option>
          ))}
        </select>
      </div>
      <div class="table-scroll">
        <table>
          <caption>
            Rows {first.toLocaleString()}–{(first + rows.length - 1).toLocaleString()} of{" "}
            {shown.length.toLocaleString()}
          </caption>
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Reference</th>
              <th scope="col">Number</th>
              <th scope="col">Verdict</th>
              <th scope="col">Details</th>
              <th scope="col">Billed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((item) => {
              const verdict = verdictOf(item);
              return (
                <tr key={item.index}>
                  <td>{item.index + 1}</td>
                  <td class="reference">{item.reference ?? ""}</td>
                  <td class="number">{[item.vat?.input, item.iban?.input].filter(Boolean).join(" / ")}</td>
                  <td>
                    <span class={`badge badge-${verdict}`}>{VERDICT_LABELS[verdict]}</span>
                  </td>
                  <td>{detailOf(item)}</td>
                  <td>{item.billable ? "yes" : "no"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Result pages">
        <button type="button" class="secondary" disabled={current === 0} onClick={() => setPage(current - 1)}>
          Previous
        </button>
        <span>
          Page {current + 1} of {pages}
        </span>
        <button
          type="button"
          class="secondary"
          disabled={current >= pages - 1}
          onClick={() => setPage(current + 1)}
        >
          Next
        </button>
      </nav>
    </div>
  );
}
