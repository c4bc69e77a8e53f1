import type { Clock } from "../../kernel/clock.ts";
import type {
  UpstreamCallOptions,
  UpstreamCheck,
  UpstreamFault,
  UpstreamOutcome,
  VatUpstream,
} from "../upstream.ts";
import { disclosed } from "./answer.ts";
import { buildViesEnvelope } from "./envelope.ts";
import { mapViesFault } from "./faults.ts";
import { parseRequesterVat, type ViesRequester } from "./requester.ts";
import { parseViesResponse, type ViesResponse } from "./response.ts";
import { type Deadline, endpoint, exchange, type FetchLike, startDeadline } from "./transport.ts";

/** Structured log sink for events operators must see; fields are JSON-safe. */
export type ViesLogger = (event: string, fields: Record<string, unknown>) => void;

export type ViesClientConfig = {
  /** Scheme and host of VIES, `https://ec.europa.eu` in production; the service path is appended. */
  baseUrl: string;
  /** Our own VAT number (`DE123456789`); when set, calls use `checkVatApprox` to get a consultation number. */
  requesterVat: string | null;
  clock: Clock;
  fetch?: FetchLike;
  log?: ViesLogger;
};

const SERVICE_PATH = "/taxation_customs/vies/services/checkVatService";

const SOAP_HEADERS = { "Content-Type": "text/xml; charset=UTF-8", SOAPAction: '""' };

/** How much of an unexpected faultstring goes into a log line. */
const LOGGED_FAULT_CHARS = 200;

function outage(
  detail: string,
  retryable: boolean,
  code: UpstreamFault["code"] = "service_unavailable",
): UpstreamFault {
  return { kind: "fault", code, detail, retryable };
}

/** How long lookups go without the requester after VIES refused it. */
export const REQUESTER_PAUSE_MS = 10 * 60 * 1000;

/** What came back over HTTP (read whatever the status), or why nothing did. */
type Reply = { kind: "reply"; status: number; response: ViesResponse | null } | UpstreamFault;

/**
 * The VIES SOAP client (`checkVatService`). Never throws: transport failures, HTML error pages,
 * unparseable bodies and SOAP faults all become an UpstreamFault; only `<valid>` in a normal
 * response is a verdict. Throws at construction when `requesterVat` is malformed.
 */
export function createViesClient(config: ViesClientConfig): VatUpstream {
  const url = endpoint(config.baseUrl, SERVICE_PATH);
  const fetchFn: FetchLike = config.fetch ?? fetch;
  const log: ViesLogger = config.log ?? (() => {});
  const requester = config.requesterVat === null ? null : parseRequesterVat(config.requesterVat);
  // After VIES refuses our requester, lookups go without it for a while instead of paying a
  // refused call each; the requester is tried again once the pause is over.
  let requesterPausedUntil = 0;

  async function send(check: UpstreamCheck, as: ViesRequester | null, deadline: Deadline): Promise<Reply> {
    const init = { method: "POST", headers: SOAP_HEADERS, body: buildViesEnvelope(check, as) };
    const reply = await exchange(fetchFn, url, init, deadline);
    if ("failure" in reply) {
      return reply.failure === "CLIENT_TIMEOUT"
        ? outage(reply.failure, true, "member_state_unavailable")
        : outage(reply.failure, reply.failure === "NETWORK");
    }
    return { kind: "reply", status: reply.status, response: parseViesResponse(reply.body) };
  }

  function interpret(check: UpstreamCheck, reply: Reply): UpstreamOutcome {
    if (reply.kind === "fault") return reply;
    const { status, response } = reply;
    if (response?.kind === "soapFault") {
      const { fault, alert } = mapViesFault(response.faultString);
      if (alert) {
        log("vies.fault_needs_attention", {
          fault: response.faultString.slice(0, LOGGED_FAULT_CHARS),
          httpStatus: status,
          countryCode: check.prefix,
        });
      }
      return fault;
    }
    // A normal answer is only trusted from a 2xx response; anything else is the platform failing.
    if (status < 200 || status > 299) return outage(`HTTP_${status}`, false);
    if (response === null || response.kind === "unreadable") return outage("UNPARSEABLE", false);
    return {
      kind: "verdict",
      valid: response.valid,
      // A state that does not disclose the name hands back the one it was sent: that is no record.
      name: response.name !== null && response.name === disclosed(check.trader?.name) ? null : response.name,
      address: response.address,
      checkedAt: new Date(config.clock.now()).toISOString(),
      consultationNumber: response.requestIdentifier,
      traderMatch: response.traderMatch,
      source: "vies",
    };
  }

  return {
    async check(check, options: UpstreamCallOptions) {
      const deadline = startDeadline(options.timeoutMs, options.signal);
      const as = config.clock.now() < requesterPausedUntil ? null : requester;
      const first = await send(check, as, deadline);
      const rejectedRequester =
        as !== null &&
        first.kind === "reply" &&
        first.response?.kind === "soapFault" &&
        first.response.faultString === "INVALID_REQUESTER_INFO";
      if (!rejectedRequester) return interpret(check, first);
      // Our configuration is wrong, not the user's input: answer without a consultation number.
      requesterPausedUntil = config.clock.now() + REQUESTER_PAUSE_MS;
      log("vies.requester_rejected", {
        requesterCountryCode: as.countryCode,
        requesterVatNumber: as.vatNumber,
        countryCode: check.prefix,
        pausedForMs: REQUESTER_PAUSE_MS,
      });
      return interpret(check, await send(check, null, deadline));
    },
  };
}
