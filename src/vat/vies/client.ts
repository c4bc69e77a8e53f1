import type { Clock } from "../../kernel/clock.ts";
import { disclosed } from "../disclosed.ts";
import { type Deadline, type FetchLike, startDeadline } from "../transport.ts";
import type {
  TraderDetails,
  UpstreamCallOptions,
  UpstreamCheck,
  UpstreamOutcome,
  UpstreamPath,
  VatUpstream,
} from "../upstream.ts";
import type { MatchCodes, ViesAnswer } from "./answer.ts";
import type { DoorReply } from "./door.ts";
import { mapViesError } from "./faults.ts";
import { parseRequesterVat, type ViesRequester } from "./requester.ts";
import { createRestDoor } from "./rest-door.ts";
import { createSoapDoor } from "./soap-door.ts";

/** Structured log sink for events operators must see; fields are JSON-safe. */
export type ViesLogger = (event: string, fields: Record<string, unknown>) => void;

/**
 * Which door checks go through: `auto` asks the SOAP service and, when that door fails, the
 * REST API within the same deadline; `soap` and `rest` use one door only.
 */
export type ViesProtocol = "auto" | "soap" | "rest";
export const VIES_PROTOCOLS: readonly ViesProtocol[] = ["auto", "soap", "rest"];

export type ViesClientConfig = {
  /** Scheme and host of VIES, `https://ec.europa.eu` in production; the service paths are appended. */
  baseUrl: string;
  /** Our own VAT number (`DE123456789`); when set, calls carry it to get a consultation number. */
  requesterVat: string | null;
  /** Defaults to `auto`. */
  protocol?: ViesProtocol;
  clock: Clock;
  fetch?: FetchLike;
  log?: ViesLogger;
};

/** How much of an unexpected error code goes into a log line. */
const LOGGED_FAULT_CHARS = 200;

/** How long lookups go without the requester after VIES refused it. */
export const REQUESTER_PAUSE_MS = 10 * 60 * 1000;

/** The codes of the details that were sent: the others answer no question of ours. */
function codesFor(codes: MatchCodes | null, trader: TraderDetails | undefined): MatchCodes | null {
  if (codes === null || trader === undefined) return null;
  const asked = Object.entries(codes).filter(([field]) => trader[field as keyof TraderDetails] !== undefined);
  return asked.length > 0 ? Object.fromEntries(asked) : null;
}

/**
 * The VIES client, through the SOAP service, the REST API or both (`protocol`). Never throws:
 * transport failures, error pages, unparseable bodies and VIES's own errors all become an
 * UpstreamFault, and both doors give the same verdict for the same answer. Throws at
 * construction when `requesterVat` is malformed.
 */
export function createViesClient(config: ViesClientConfig): VatUpstream {
  const fetchFn: FetchLike = config.fetch ?? fetch;
  const log: ViesLogger = config.log ?? (() => {});
  const protocol = config.protocol ?? "auto";
  const doors = {
    soap: createSoapDoor(config.baseUrl, fetchFn),
    rest: createRestDoor(config.baseUrl, fetchFn),
  };
  const firstDoor: UpstreamPath = protocol === "rest" ? "rest" : "soap";
  const requester = config.requesterVat === null ? null : parseRequesterVat(config.requesterVat);
  // After VIES refuses our requester, lookups go without it for a while instead of paying a
  // refused call each; the requester is tried again once the pause is over.
  let requesterPausedUntil = 0;
  // A failing SOAP door is logged when it starts failing and when it answers again, not per call.
  let soapDoorDown = false;

  /** One door's reply; a refused requester is our configuration, so the call is made again without it. */
  async function ask(path: UpstreamPath, check: UpstreamCheck, deadline: Deadline): Promise<DoorReply> {
    const as: ViesRequester | null = config.clock.now() < requesterPausedUntil ? null : requester;
    const reply = await doors[path].send(check, as, deadline);
    if (as === null || reply.kind !== "error" || reply.error !== "INVALID_REQUESTER_INFO") return reply;
    requesterPausedUntil = config.clock.now() + REQUESTER_PAUSE_MS;
    log("vies.requester_rejected", {
      requesterCountryCode: as.countryCode,
      requesterVatNumber: as.vatNumber,
      countryCode: check.prefix,
      path,
      pausedForMs: REQUESTER_PAUSE_MS,
    });
    return doors[path].send(check, null, deadline);
  }

  function verdict(check: UpstreamCheck, answer: ViesAnswer, path: UpstreamPath): UpstreamOutcome {
    return {
      kind: "verdict",
      valid: answer.valid,
      // A state that does not disclose the name hands back the one it was sent: that is no record.
      name: answer.name !== null && answer.name === disclosed(check.trader?.name) ? null : answer.name,
      address: answer.address,
      checkedAt: new Date(config.clock.now()).toISOString(),
      consultationNumber: answer.requestIdentifier,
      traderMatch: codesFor(answer.traderMatch, check.trader),
      source: "vies",
      path,
    };
  }

  function interpret(check: UpstreamCheck, path: UpstreamPath, reply: DoorReply): UpstreamOutcome {
    switch (reply.kind) {
      case "answer":
        return verdict(check, reply.answer, path);
      case "failed":
        return { ...reply.fault, path };
      case "error": {
        const { fault, alert } = mapViesError(reply.error, reply.httpStatus);
        if (alert) {
          log("vies.fault_needs_attention", {
            fault: reply.error.slice(0, LOGGED_FAULT_CHARS),
            httpStatus: reply.httpStatus,
            countryCode: check.prefix,
            path,
          });
        }
        return { ...fault, path };
      }
    }
  }

  /** Notes whether the SOAP door answered; true when the REST door is to be asked instead. */
  function soapDoorFailed(check: UpstreamCheck, reply: DoorReply): boolean {
    const down = reply.kind === "failed" && reply.doorFailure;
    if (down && !soapDoorDown) {
      log("vies.soap_door_failed", { detail: reply.fault.detail, countryCode: check.prefix });
    } else if (!down && soapDoorDown) {
      log("vies.soap_door_recovered", { countryCode: check.prefix });
    }
    soapDoorDown = down;
    return down;
  }

  return {
    async check(check, options: UpstreamCallOptions) {
      const deadline = startDeadline(options.timeoutMs, options.signal);
      const reply = await ask(firstDoor, check, deadline);
      if (protocol !== "auto" || !soapDoorFailed(check, reply)) return interpret(check, firstDoor, reply);
      // Both doors lead to the same member state: only a failure of the SOAP door itself is
      // worth the REST door, and in what is left of the same deadline.
      return interpret(check, "rest", await ask("rest", check, deadline));
    },
  };
}
