import { isRecord, parseJsonObject } from "../json.ts";
import {
  type UpstreamFault,
  type UpstreamFaultCode,
  type UpstreamOutcome,
  upstreamFault,
} from "../upstream.ts";
import { faultDetail, type HmrcReply, isTransientStatus, text } from "./wire.ts";

/** What the client knows about the lookup it made, needed to read the answer. */
export type LookupContext = {
  /** Whether the lookup carried our requester VRN (and so may carry a consultation number). */
  requesterSent: boolean;
  /** When the answer arrived, ISO 8601 UTC. */
  checkedAt: string;
};

/**
 * How the client should treat a lookup reply: an answer to pass on (a verdict or a fault), a
 * fault caused by our own deployment (credentials, subscription, requester VRN) that operators
 * must hear about, or a refused token (HTTP 401) to discard before trying once more.
 */
export type LookupReading =
  | { kind: "answered"; outcome: UpstreamOutcome }
  | { kind: "misconfigured"; fault: UpstreamFault; alarm: string }
  | { kind: "token_refused"; detail: string };

/** HMRC's error body: `{"code": "...", "message": "..."}`; either may be missing on non-JSON replies. */
export type HmrcError = { code: string | null; message: string | null };

const ADDRESS_LINES = ["line1", "line2", "line3", "line4", "line5"] as const;

// HMRC's own wording for "this number is not registered"; the API platform uses the same code
// NOT_FOUND for a path or version it cannot route, which must never read as "not registered".
const TARGET_NOT_FOUND = "targetVrn";

/** Reads HMRC's `{code, message}` error body; anything else (HTML, empty, other JSON) gives nulls. */
export function readHmrcError(body: string): HmrcError {
  const parsed = parseJsonObject(body);
  return { code: text(parsed?.code), message: text(parsed?.message) };
}

/** Translates one reply of the lookup endpoint (v2.0) into the service's terms. */
export function readLookupReply(reply: HmrcReply, context: LookupContext): LookupReading {
  if (reply.status === 200) return { kind: "answered", outcome: readRegistration(reply.body, context) };

  const error = readHmrcError(reply.body);
  const detail = faultDetail("", reply.status, error.code);
  const answered = (code: UpstreamFaultCode, retryable: boolean): LookupReading => ({
    kind: "answered",
    outcome: upstreamFault(code, detail, retryable),
  });
  const misconfigured = (hint: string): LookupReading => ({
    kind: "misconfigured",
    fault: upstreamFault("service_unavailable", detail, false),
    alarm: `HMRC answered ${reply.status} ${error.code ?? "(no code)"}: ${error.message ?? "(no message)"}; ${hint}`,
  });

  switch (reply.status) {
    case 404:
      if (error.code === "NOT_FOUND" && error.message?.includes(TARGET_NOT_FOUND)) {
        return { kind: "answered", outcome: notRegistered(context) };
      }
      return misconfigured("check the base URL and the API version");
    case 400:
      if (error.code !== "INVALID_REQUEST") return answered("service_unavailable", false);
      if (error.message?.includes("requesterVrn")) return misconfigured("check the requester VRN");
      return answered("invalid_input", false);
    case 401:
      return { kind: "token_refused", detail };
    case 403:
      return misconfigured("check the application's subscription to the API and the requester VRN");
    case 406:
      return misconfigured("the client sent an Accept header HMRC does not serve");
    case 429:
      return answered("upstream_rate_limited", true);
    default:
      return answered("service_unavailable", isTransientStatus(reply.status));
  }
}

function readRegistration(body: string, context: LookupContext): UpstreamOutcome {
  const parsed = parseJsonObject(body);
  const target = parsed?.target;
  if (!isRecord(target)) return upstreamFault("service_unavailable", "UNPARSEABLE", false);
  return {
    kind: "verdict",
    valid: true,
    name: text(target.name),
    address: formatAddress(target.address),
    checkedAt: context.checkedAt,
    consultationNumber: context.requesterSent ? text(parsed?.consultationNumber) : null,
    traderMatch: null,
    source: "uk_authority",
  };
}

function notRegistered(context: LookupContext): UpstreamOutcome {
  return {
    kind: "verdict",
    valid: false,
    name: null,
    address: null,
    checkedAt: context.checkedAt,
    consultationNumber: null,
    traderMatch: null,
    source: "uk_authority",
  };
}

/**
 * HMRC's address lines, then the postcode on its own line, joined with "\n". The country code
 * is added only when it is not GB, since every other answer of this API is a UK address.
 */
export function formatAddress(address: unknown): string | null {
  if (!isRecord(address)) return null;
  const lines = ADDRESS_LINES.map((key) => text(address[key]));
  lines.push(text(address.postcode));
  const country = text(address.countryCode);
  if (country !== null && country.toUpperCase() !== "GB") lines.push(country);
  const present = lines.filter((line): line is string => line !== null);
  return present.length > 0 ? present.join("\n") : null;
}
