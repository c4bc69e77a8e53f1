import { XMLParser } from "fast-xml-parser";
import { disclosed } from "../disclosed.ts";
import type { AuthorityMatchCode } from "../upstream.ts";
import { readMatchCodes, type ViesAnswer } from "./answer.ts";

/** A SOAP fault; the whole code is the `faultstring` (VIES sends no `<detail>`). */
export type ViesSoapFault = { kind: "soapFault"; faultString: string };

/** A SOAP envelope holding neither a fault nor an answer we can read. */
export type ViesUnreadable = { kind: "unreadable" };

export type ViesResponse = ViesAnswer | ViesSoapFault | ViesUnreadable;

const parser = new XMLParser({
  // Prefixes have changed over the years (`soap:` before 2022, `env:`/`ns2:` now): match local names.
  removeNSPrefix: true,
  // Values stay strings: a Belgian `0123456789` must not become a number.
  parseTagValue: false,
  // Addresses carry meaningful inner newlines; normalization happens in `disclosed`.
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // The only way in this version to decode numeric character references (`&#xD;`, `&#233;`).
  htmlEntities: true,
});

type XmlNode = Record<string, unknown>;

function child(node: unknown, name: string): unknown {
  return typeof node === "object" && node !== null && !Array.isArray(node)
    ? (node as XmlNode)[name]
    : undefined;
}

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
  let document: unknown;
  try {
    document = parser.parse(body, true);
  } catch {
    return null;
  }
  const soapBody = child(child(document, "Envelope"), "Body");
  if (soapBody === undefined) return null;
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
