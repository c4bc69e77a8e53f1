import { disclosed } from "../disclosed.ts";
import { child, soapBodyReader } from "../soap.ts";
import type { AuthorityMatchCode } from "../upstream.ts";
import { readMatchCodes, type ViesAnswer } from "./answer.ts";

/** A SOAP fault; the whole code is the `faultstring` (VIES sends no `<detail>`). */
export type ViesSoapFault = { kind: "soapFault"; faultString: string };

/** A SOAP envelope holding neither a fault nor an answer we can read. */
export type ViesUnreadable = { kind: "unreadable" };

export type ViesResponse = ViesAnswer | ViesSoapFault | ViesUnreadable;

const readBody = soapBodyReader();

function text(node: unknown): string | undefined {
  return typeof node === "string" ? node : undefined;
}

// xsd:boolean: VIES writes true/false, but 1/0 are the same values.
const XSD_BOOLEAN = new Map([
  ["true", true],
  ["1", true],
  ["false", false],
  ["0", false],
]);

/** checkVatApprox's `matchCode` type: 1 VALID, 2 INVALID, 3 NOT_PROCESSED. */
const SOAP_MATCH_CODES: ReadonlyMap<string, AuthorityMatchCode> = new Map([
  ["1", "match"],
  ["2", "mismatch"],
  ["3", "not_processed"],
]);

/** The response element of each trader detail's code (SOAP spells the postcode `Postcode`). */
const MATCH_ELEMENTS = {
  name: "traderNameMatch",
  companyType: "traderCompanyTypeMatch",
  street: "traderStreetMatch",
  postcode: "traderPostcodeMatch",
  city: "traderCityMatch",
} as const;

function answer(response: unknown, approx: boolean): ViesAnswer | ViesUnreadable {
  const valid = XSD_BOOLEAN.get(text(child(response, "valid"))?.trim() ?? "");
  if (valid === undefined) return { kind: "unreadable" };
  const identifier = text(child(response, "requestIdentifier"))?.trim();
  return {
    kind: "answer",
    valid,
    name: disclosed(text(child(response, approx ? "traderName" : "name"))),
    address: disclosed(text(child(response, approx ? "traderAddress" : "address"))),
    requestIdentifier: identifier ? identifier : null,
    traderMatch: approx
      ? readMatchCodes((field) => text(child(response, MATCH_ELEMENTS[field])), SOAP_MATCH_CODES)
      : null,
  };
}

/**
 * Reads a VIES SOAP response body, namespace-agnostically. A fault is looked for first; then a
 * `checkVatResponse` or `checkVatApproxResponse` with a `valid` of `true`/`false`; another
 * envelope is `unreadable`. Anything that is not a SOAP envelope (HTML error pages, truncated
 * or foreign XML, plain text) gives null.
 */
export function parseViesResponse(body: string): ViesResponse | null {
  const soapBody = readBody(body);
  if (soapBody === null) return null;
  const fault = child(soapBody, "Fault");
  if (fault !== undefined) {
    return { kind: "soapFault", faultString: text(child(fault, "faultstring"))?.trim() ?? "" };
  }
  const plain = child(soapBody, "checkVatResponse");
  if (plain !== undefined) return answer(plain, false);
  const approx = child(soapBody, "checkVatApproxResponse");
  if (approx !== undefined) return answer(approx, true);
  return { kind: "unreadable" };
}
