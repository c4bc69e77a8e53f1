import type { Deadline, TransportFailure } from "../transport.ts";
import type { UpstreamCheck, UpstreamFault } from "../upstream.ts";
import type { ViesAnswer } from "./answer.ts";
import type { ViesRequester } from "./requester.ts";

/** What one door made of one call. */
export type DoorReply =
  | { kind: "answer"; answer: ViesAnswer }
  /** VIES's own error code (a SOAP faultstring, a REST `errorWrappers` entry) and the HTTP status it came with. */
  | { kind: "error"; error: string; httpStatus: number }
  /**
   * No usable answer. `doorFailure`: the failure says nothing about the member state (the
   * connection, or an answer that is not the door's protocol), so the other door may answer.
   */
  | { kind: "failed"; fault: UpstreamFault; doorFailure: boolean };

/** One of VIES's two front doors to the same checks. */
export type ViesDoor = {
  send(check: UpstreamCheck, requester: ViesRequester | null, deadline: Deadline): Promise<DoorReply>;
};

export function failed(
  detail: string,
  retryable: boolean,
  doorFailure: boolean,
  code: UpstreamFault["code"] = "service_unavailable",
): DoorReply {
  return { kind: "failed", fault: { kind: "fault", code, detail, retryable }, doorFailure };
}

/**
 * No response: our deadline passing is the member state being slow (VIES holds the call until
 * it answers); a dropped connection is the door failing.
 */
export function unanswered({ failure }: TransportFailure): DoorReply {
  if (failure === "CLIENT_TIMEOUT") return failed(failure, true, false, "member_state_unavailable");
  return failed(failure, failure === "NETWORK", failure === "NETWORK");
}
