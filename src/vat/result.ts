import { type ApiErrorBody, componentError } from "../kernel/errors.ts";
import type { MatchResult } from "../matching/schema.ts";
import { AUTHORITIES, authorityOf } from "./authorities.ts";
import type { VatFormatOk, VatFormatRejected } from "./format/check-vat-format.ts";
import type { VatResult } from "./schema.ts";
import type { UpstreamFault, UpstreamVerdict } from "./upstream.ts";

/** The faults a caller can see: the upstream refusing the number is answered differently. */
export type UnavailableCode = Exclude<UpstreamFault["code"], "invalid_input">;

const UNDETERMINED = {
  name: null,
  address: null,
  checked_at: null,
  consultation_number: null,
  cached: false,
  stale: false,
  warning: null,
} as const;

function identity(input: string, format: VatFormatOk) {
  return {
    input,
    vat_number: format.vatNumber,
    country_code: format.countryCode,
    country_name: format.countryName,
  };
}

/** The number failed the local format check: no authority was asked. */
export function rejectedResult(
  input: string,
  rejection: VatFormatRejected,
  match: MatchResult | null,
): VatResult {
  return {
    ...UNDETERMINED,
    match,
    input,
    valid: false,
    vat_number: null,
    country_code: rejection.countryCode,
    country_name: rejection.countryName,
    source: "syntax",
    error: componentError(rejection.code, rejection.message),
  };
}

/**
 * An authority's verdict, as it was given: `checked_at` and `consultation_number` belong to
 * that check, so a cached or stale copy keeps them.
 */
export function verdictResult(
  input: string,
  format: VatFormatOk,
  verdict: UpstreamVerdict,
  served: { cached: boolean; stale: boolean; warning: ApiErrorBody | null },
  match: MatchResult | null,
): VatResult {
  return {
    ...identity(input, format),
    valid: verdict.valid,
    name: verdict.name,
    address: verdict.address,
    source: verdict.source,
    checked_at: verdict.checkedAt,
    consultation_number: verdict.consultationNumber,
    error: null,
    ...served,
    match,
  };
}

/** No verdict could be had: `valid` is null and `error` says why. */
export function unavailableResult(
  input: string,
  format: VatFormatOk,
  error: ApiErrorBody,
  match: MatchResult | null,
): VatResult {
  return { ...UNDETERMINED, ...identity(input, format), valid: null, source: null, error, match };
}

/**
 * The authority refused the number as malformed although it passed our format check. That
 * is a fault of the upstream call, not a verdict, so `valid` stays null: VIES also answers
 * INVALID_INPUT for reasons of its own, and a fault is never reported as "not valid".
 */
export function refusedResult(
  input: string,
  format: VatFormatOk,
  source: UpstreamVerdict["source"],
  match: MatchResult | null,
): VatResult {
  const authority = AUTHORITIES[source].name;
  return {
    ...UNDETERMINED,
    ...identity(input, format),
    valid: null,
    source,
    match,
    error: componentError(
      "invalid_format",
      `${authority} refused ${format.vatNumber} as malformed for ${format.countryName}`,
    ),
  };
}

/** The English message of an upstream fault, naming the authority and the country. */
export function faultMessage(code: UnavailableCode, format: VatFormatOk): string {
  const authority = AUTHORITIES[authorityOf(format.prefix)].name;
  switch (code) {
    case "member_state_unavailable":
      return `the VAT system of ${format.countryName} is not answering; try again later`;
    case "service_unavailable":
      return `${authority} is unreachable or answered with an error; try again later`;
    case "upstream_rate_limited":
      return `${authority} is throttling requests for ${format.countryName}; try again shortly`;
  }
}

export const UK_UNCHECKABLE_MESSAGE =
  "the UK VAT service cannot check government department (GD) and health authority (HA) numbers";
