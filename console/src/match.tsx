import type { Schemas } from "@vat-iban/client";

type MatchRequest = Schemas["MatchRequest"];
type MatchResult = Schemas["MatchResult"];
type FieldMatch = Schemas["FieldMatch"];

/** The details a match compares, in the order a person writes an address. */
export const MATCH_FIELDS = [
  ["name", "Name"],
  ["company_type", "Company type (GmbH, S.A., Ltd …)"],
  ["street", "Street"],
  ["postcode", "Postcode"],
  ["city", "City"],
] as const satisfies readonly (readonly [keyof MatchRequest, string])[];

/** The filled fields of the match form, or undefined when none was filled: no match asked. */
export function matchRequestOf(form: HTMLFormElement): MatchRequest | undefined {
  const data = new FormData(form);
  const entries = MATCH_FIELDS.map(([field]) => [
    field,
    String(data.get(`match_${field}`) ?? "").trim(),
  ]).filter(([, value]) => value !== "");
  return entries.length > 0 ? (Object.fromEntries(entries) as MatchRequest) : undefined;
}

/** The optional details to compare, folded away until asked for. */
export function MatchInputs() {
  return (
    <details class="match-inputs">
      <summary>Compare with the name and address you were given (optional)</summary>
      <p class="muted">
        The register's record is compared with what you type: by the member state where it does so, otherwise
        by this service. It bills nothing more.
      </p>
      {MATCH_FIELDS.map(([field, label]) => (
        <label key={field}>
          {label}
          <input name={`match_${field}`} autocomplete="off" maxLength={200} />
        </label>
      ))}
    </details>
  );
}

const OVERALL: Record<MatchResult["overall"], string> = {
  match: "The details you gave match the register",
  partial: "Some of the details you gave match the register",
  mismatch: "The details you gave do not match the register",
  not_processed: "The details could not be compared: this member state discloses no name or address",
};

const RESULT: Record<FieldMatch["result"], string> = {
  match: "matches",
  mismatch: "does not match",
  not_processed: "not compared",
};

const BY: Record<NonNullable<FieldMatch["by"]>, string> = {
  authority: "by the member state",
  local: "by this service",
};

/** A match verdict as a person reads it: the overall word, then each field sent. */
export function MatchView({ match }: { match: MatchResult }) {
  const verdict =
    match.overall === "match" ? "valid" : match.overall === "not_processed" ? "unknown" : "invalid";
  return (
    <section class="match" aria-label="Details compared">
      <p class={`verdict verdict-${verdict}`}>{OVERALL[match.overall]}</p>
      <dl class="fields">
        {MATCH_FIELDS.map(([field, label]) => {
          const compared = match[field];
          return (
            compared && (
              <div key={field}>
                <dt>{label.replace(/ \(.*$/, "")}</dt>
                <dd>
                  {RESULT[compared.result]}
                  {compared.by && ` (${BY[compared.by]})`}
                </dd>
              </div>
            )
          );
        })}
      </dl>
    </section>
  );
}
