import type { Schemas } from "@vat-iban/client";
import type { ComponentChildren } from "preact";
import { dateTime, Fields, OtherFields, type Verdict, VerdictLine } from "./fields.tsx";
import { MatchView } from "./match.tsx";

type VatResult = Schemas["VatResult"];
type IbanResult = Schemas["IbanResult"];

const verdictOf = (valid: boolean | null): Verdict =>
  valid === true ? "valid" : valid === false ? "invalid" : "unknown";

/** A checked VAT number or IBAN: its verdict, the error that decided it, any warning, then its details. */
function ResultCard({
  title,
  verdict,
  validHeadline,
  result,
  children,
}: {
  /** What was checked, as the heading and the card's accessible name give it. */
  title: string;
  verdict: Verdict;
  validHeadline: string;
  result: { error?: { message: string } | null; warning?: { message: string } | null };
  children: ComponentChildren;
}) {
  return (
    <article class={`result result-${verdict}`} aria-label={title}>
      <h3>{title}</h3>
      <VerdictLine verdict={verdict}>
        {verdict === "valid" ? validHeadline : verdict === "invalid" ? "Not valid" : "Could not be checked"}
        {result.error && <>: {result.error.message}</>}
      </VerdictLine>
      {result.warning && (
        <p class="notice notice-warning" role="note">
          {result.warning.message}
        </p>
      )}
      {children}
    </article>
  );
}

const SOURCES: Record<NonNullable<VatResult["source"]>, string> = {
  vies: "VIES, the EU's VAT information exchange system",
  uk_authority: "the UK tax authority (HMRC)",
  ch_uid: "the Swiss UID register (Federal Statistical Office)",
  no_brreg: "the Norwegian Register of Legal Entities (Brønnøysund)",
  syntax: "the format check of this service (not sent to any authority)",
};

const VAT_SHOWN = [
  "input",
  "valid",
  "vat_number",
  "country_code",
  "country_name",
  "name",
  "address",
  "source",
  "cached",
  "stale",
  "checked_at",
  "consultation_number",
  "error",
  "warning",
  "match",
] as const;

export function VatResultView({ result }: { result: VatResult }) {
  const verdict = verdictOf(result.valid);
  const how = [
    result.cached && "from this service's cache",
    result.stale && "a copy kept from an earlier check",
  ]
    .filter(Boolean)
    .join(", ");
  return (
    <ResultCard
      title={`VAT number ${result.vat_number ?? result.input}`}
      verdict={verdict}
      validHeadline="Valid: registered for VAT"
      result={result}
    >
      <dl class="fields">
        {result.country_name && (
          <div>
            <dt>Country</dt>
            <dd>
              {result.country_name} ({result.country_code})
            </dd>
          </div>
        )}
        {result.name && (
          <div>
            <dt>Registered name</dt>
            <dd>{result.name}</dd>
          </div>
        )}
        {result.address && (
          <div>
            <dt>Registered address</dt>
            <dd class="address">{result.address}</dd>
          </div>
        )}
        {result.valid === true && !result.name && !result.address && (
          <div>
            <dt>Name and address</dt>
            <dd>not disclosed by this member state</dd>
          </div>
        )}
        {result.source && (
          <div>
            <dt>Checked with</dt>
            <dd>{SOURCES[result.source] ?? result.source}</dd>
          </div>
        )}
        {result.checked_at && (
          <div>
            <dt>Confirmed by the authority</dt>
            <dd>
              {dateTime(result.checked_at)}
              {how && ` (${how})`}
            </dd>
          </div>
        )}
        <div>
          <dt>Consultation number</dt>
          <dd>{result.consultation_number ?? "none given for this check"}</dd>
        </div>
      </dl>
      {result.match && <MatchView match={result.match} />}
      <OtherFields result={result} known={VAT_SHOWN} />
    </ResultCard>
  );
}

const IBAN_SHOWN = [
  "input",
  "valid",
  "iban",
  "iban_formatted",
  "country_code",
  "check_digits",
  "bban",
  "bank_code",
  "branch_code",
  "account_number",
  "sepa",
  "bank",
  "source",
  "cached",
  "error",
  "national_check",
  "warning",
] as const;

const NATIONAL_CHECK: Record<IbanResult["national_check"], string> = {
  passed: "hold: the account number is consistent with its bank",
  failed: "do not hold: the bank is likely to refuse a payment to it",
  not_applicable: "none to check for this country or bank",
};

export function IbanResultView({ result }: { result: IbanResult }) {
  const verdict = verdictOf(result.valid);
  return (
    <ResultCard
      title={`IBAN ${result.iban_formatted ?? result.input}`}
      verdict={verdict}
      validHeadline={
        result.national_check === "failed"
          ? "Valid IBAN, but its national check digits do not hold"
          : "Valid IBAN"
      }
      result={result}
    >
      <Fields
        entries={[
          ["bank", result.bank?.name ?? (result.valid ? "not in the bundled bank registry" : null)],
          ["BIC", result.bank?.bic],
          ["country", result.country_code],
          ["bank_code", result.bank_code],
          ["branch_code", result.branch_code],
          ["account_number", result.account_number],
          ["SEPA", result.sepa],
          ["national check digits", result.valid ? NATIONAL_CHECK[result.national_check] : null],
        ]}
      />
      <OtherFields result={result} known={IBAN_SHOWN} />
    </ResultCard>
  );
}
