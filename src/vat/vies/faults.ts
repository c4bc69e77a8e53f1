import type { UpstreamFault } from "../upstream.ts";

type FaultRule = Omit<UpstreamFault, "kind" | "detail"> & {
  /** Needs a human: our request, configuration or egress is being refused. */
  alert: boolean;
};

const memberStateDown = { code: "member_state_unavailable", retryable: false, alert: false } as const;
const throttled = { code: "upstream_rate_limited", retryable: true, alert: false } as const;
const refused = { code: "service_unavailable", retryable: false, alert: true } as const;

/**
 * Every faultstring VIES is known to send (current WSDL, test service, the pre-2021 WSDL).
 * Retryable marks per-request conditions (a slot, a slow answer) rather than a state that an
 * immediate retry cannot change (a member state offline, a block).
 */
const FAULT_RULES: Record<string, FaultRule> = {
  INVALID_INPUT: { code: "invalid_input", retryable: false, alert: false },
  INVALID_REQUESTER_INFO: refused,
  SERVICE_UNAVAILABLE: { code: "service_unavailable", retryable: true, alert: false },
  SERVER_BUSY: { code: "service_unavailable", retryable: true, alert: false },
  MS_UNAVAILABLE: memberStateDown,
  TIMEOUT: { ...memberStateDown, retryable: true },
  GLOBAL_MAX_CONCURRENT_REQ: throttled,
  GLOBAL_MAX_CONCURRENT_REQ_TIME: throttled,
  MS_MAX_CONCURRENT_REQ: throttled,
  MS_MAX_CONCURRENT_REQ_TIME: throttled,
  VAT_BLOCKED: refused,
  IP_BLOCKED: refused,
};

/** The detail used for fault strings we do not know, so metrics labels stay bounded. */
export const UNKNOWN_FAULT = "UNKNOWN_FAULT";

/**
 * Maps a VIES faultstring to our fault. Never a verdict: a fault says nothing about whether
 * the number is registered. `alert` tells the caller to log it for operators.
 */
export function mapViesFault(faultString: string): { fault: UpstreamFault; alert: boolean } {
  const rule = Object.hasOwn(FAULT_RULES, faultString) ? FAULT_RULES[faultString] : undefined;
  if (rule === undefined) {
    return {
      fault: { kind: "fault", code: "service_unavailable", detail: UNKNOWN_FAULT, retryable: false },
      alert: true,
    };
  }
  const { code, retryable, alert } = rule;
  return { fault: { kind: "fault", code, detail: faultString, retryable }, alert };
}

/** The REST API's own codes (VIES-on-the-Web): `VOW-ERR-11` for one requester field without the other, `VOW-ERR-1`… */
const VOW_ERROR = /^VOW-ERR-\d{1,4}$/;

/**
 * Maps VIES's error code from either door: the SOAP faultstrings and the REST `errorWrappers`
 * share one table; the REST-only `VOW-ERR-*` codes are our request being refused when they come
 * with HTTP 400 (a human must look: `alert`), else the platform failing. Never a verdict.
 */
export function mapViesError(error: string, httpStatus: number): { fault: UpstreamFault; alert: boolean } {
  if (!VOW_ERROR.test(error)) return mapViesFault(error);
  return {
    fault: { kind: "fault", code: "service_unavailable", detail: error, retryable: false },
    alert: httpStatus === 400,
  };
}
