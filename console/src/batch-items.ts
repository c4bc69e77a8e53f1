import type { Schemas } from "@vat-iban/client";

export type BatchItem = Schemas["BatchItem"];
export type ItemVerdict = "valid" | "invalid" | "failed" | "cancelled" | "pending";

export const VERDICT_LABELS: Record<ItemVerdict, string> = {
  valid: "Valid",
  invalid: "Not valid",
  failed: "Could not be checked",
  cancelled: "Cancelled",
  pending: "Not checked yet",
};

/** As the batch's counts have it: an answered item is valid when none of its answered parts is found not valid. */
export function verdictOf(item: BatchItem): ItemVerdict {
  if (item.status !== "done") return item.status;
  return [item.vat, item.iban].some((part) => part?.valid === false) ? "invalid" : "valid";
}

/** What a person wants to see of an item beside its verdict: whose number, which bank, or what went wrong. */
export function detailOf(item: BatchItem): string {
  const { vat, iban } = item;
  const notes = [
    vat?.name,
    vat?.valid === false && !vat.error ? "not registered for VAT" : null,
    iban?.bank ? `${iban.bank.name} (${iban.bank.bic})` : null,
    ...[item.error, vat?.error, iban?.error].map((error) => error?.message),
  ];
  return notes.filter((note): note is string => Boolean(note)).join("; ");
}
