import type { AuthoritySource } from "./authorities.ts";

/** The trader details a caller asks the authority to compare with its record (VIES approximate check). */
export type TraderDetails = {
  name?: string;
  street?: string;
  postcode?: string;
  city?: string;
  companyType?: string;
};

/** Which of an authority's front doors answered (VIES: the SOAP service or the REST API). */
export type UpstreamPath = "soap" | "rest";

/** One field's answer from the member state: VIES 1 (match), 2 (mismatch), 3 (not processed). */
export type AuthorityMatchCode = "match" | "mismatch" | "not_processed";

/**
 * What an upstream VAT authority (VIES, a national service) answered for one number, in the
 * service's own terms. Clients translate their wire protocol into this; the VAT service
 * decides caching, billing and fallbacks from it.
 */
export type UpstreamVerdict = {
  kind: "verdict";
  valid: boolean;
  /** Registered name; null when not disclosed (`---`, empty or missing). */
  name: string | null;
  /** Registered address, outer whitespace trimmed, lines joined with "\n"; null when not disclosed. */
  address: string | null;
  /** ISO 8601 timestamp (UTC) taken from the client's clock when the answer arrived. */
  checkedAt: string;
  /** Consultation reference; null when none was issued (empty) or not requested. */
  consultationNumber: string | null;
  /**
   * The match codes the member state returned for the trader details it was asked to compare;
   * null when it returned none (no details asked, or a state that does not compare).
   */
  traderMatch: Partial<Record<keyof TraderDetails, AuthorityMatchCode>> | null;
  source: AuthoritySource;
  /** The door that answered, for metrics and logs, where the authority has more than one. */
  path?: UpstreamPath;
};

export type UpstreamFaultCode =
  | "member_state_unavailable"
  | "service_unavailable"
  | "upstream_rate_limited"
  /** The authority refused the number as malformed (VIES `INVALID_INPUT`, UK 400). */
  | "invalid_input";

export type UpstreamFault = {
  kind: "fault";
  code: UpstreamFaultCode;
  /** Raw cause for logs and metrics: the fault string, `HTTP_503`, `TIMEOUT`, `NETWORK`, `UNPARSEABLE`... */
  detail: string;
  /** Whether an immediate, bounded retry may succeed (throttling, timeouts). */
  retryable: boolean;
  /** The door whose answer (or silence) this is, where the authority has more than one; absent when no call was made. */
  path?: UpstreamPath;
};

export type UpstreamOutcome = UpstreamVerdict | UpstreamFault;

/** Builds an UpstreamFault. */
export function upstreamFault(code: UpstreamFaultCode, detail: string, retryable: boolean): UpstreamFault {
  return { kind: "fault", code, detail, retryable };
}

export type UpstreamCheck = {
  /** The VIES prefix (`EL` for Greece, `XI` for Northern Ireland, `GB` for the UK service). */
  prefix: string;
  /** The number without its prefix, normalized. */
  number: string;
  /** When present, the authority is asked to compare these details with its record (VIES approximate check). */
  trader?: TraderDetails;
};

export type UpstreamCallOptions = {
  /** Give up after this many milliseconds; a client-side timeout is a `member_state_unavailable` fault. */
  timeoutMs: number;
  signal?: AbortSignal;
};

/** One call to one upstream authority. Never throws: every failure is an UpstreamFault. */
export interface VatUpstream {
  check(request: UpstreamCheck, options: UpstreamCallOptions): Promise<UpstreamOutcome>;
}
