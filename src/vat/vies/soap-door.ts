import { endpoint, exchange, type FetchLike } from "../transport.ts";
import type { DoorReply, ViesDoor } from "./door.ts";
import { failed, unanswered } from "./door.ts";
import { buildViesEnvelope } from "./envelope.ts";
import { parseViesResponse } from "./response.ts";

const SERVICE_PATH = "/taxation_customs/vies/services/checkVatService";

const SOAP_HEADERS = { "Content-Type": "text/xml; charset=UTF-8", SOAPAction: '""' };

/**
 * The SOAP door (`checkVatService`). A fault is VIES's error whatever the HTTP status; a normal
 * answer is only trusted from a 2xx response. A door failure: the connection failing, a 5xx
 * without a fault, or a body that is not a SOAP envelope.
 */
export function createSoapDoor(baseUrl: string, fetchFn: FetchLike): ViesDoor {
  const url = endpoint(baseUrl, SERVICE_PATH);
  return {
    async send(check, requester, deadline): Promise<DoorReply> {
      const init = { method: "POST", headers: SOAP_HEADERS, body: buildViesEnvelope(check, requester) };
      const reply = await exchange(fetchFn, url, init, deadline);
      if ("failure" in reply) return unanswered(reply);
      const { status } = reply;
      const response = parseViesResponse(reply.body);
      if (response?.kind === "soapFault")
        return { kind: "error", error: response.faultString, httpStatus: status };
      if (status < 200 || status > 299)
        return failed(`HTTP_${status}`, false, status >= 500 || response === null);
      if (response === null) return failed("UNPARSEABLE", false, true);
      if (response.kind === "unreadable") return failed("UNPARSEABLE", false, false);
      return { kind: "answer", answer: response };
    },
  };
}
