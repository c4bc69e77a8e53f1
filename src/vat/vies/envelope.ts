import type { UpstreamCheck } from "../upstream.ts";
import type { ViesRequester } from "./requester.ts";

const SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/";
const VIES_TYPES = "urn:ec.europa.eu:taxud:vies:services:checkVat:types";

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => XML_ESCAPES[char] ?? char);
}

function element(name: string, value: string): string {
  return `<urn:${name}>${escapeXml(value)}</urn:${name}>`;
}

/**
 * Builds the SOAP 1.1 request body by hand (no WSDL at run time): `checkVat` without a requester,
 * `checkVatApprox` with the requester fields when one is given. Children are qualified with the
 * types namespace because the schema is `elementFormDefault="qualified"`.
 */
export function buildViesEnvelope(check: UpstreamCheck, requester: ViesRequester | null): string {
  const operation = requester === null ? "checkVat" : "checkVatApprox";
  const fields = [element("countryCode", check.prefix), element("vatNumber", check.number)];
  if (requester !== null) {
    fields.push(
      element("requesterCountryCode", requester.countryCode),
      element("requesterVatNumber", requester.vatNumber),
    );
  }
  return (
    `<soapenv:Envelope xmlns:soapenv="${SOAP_ENV}" xmlns:urn="${VIES_TYPES}">` +
    "<soapenv:Header/><soapenv:Body>" +
    `<urn:${operation}>${fields.join("")}</urn:${operation}>` +
    "</soapenv:Body></soapenv:Envelope>"
  );
}
