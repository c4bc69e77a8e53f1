import type { TraderDetails, UpstreamCheck } from "../upstream.ts";
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

/** The checkVatApprox trader elements, in the order of the WSDL's sequence. */
const TRADER_ELEMENTS: ReadonlyArray<[keyof TraderDetails, string]> = [
  ["name", "traderName"],
  ["companyType", "traderCompanyType"],
  ["street", "traderStreet"],
  ["postcode", "traderPostcode"],
  ["city", "traderCity"],
];

/**
 * Builds the SOAP 1.1 request body by hand (no WSDL at run time): `checkVat` for a plain check,
 * `checkVatApprox` when trader details are to be compared or a requester is given (the
 * requester makes VIES issue a consultation number). Children are qualified with the types
 * namespace because the schema is `elementFormDefault="qualified"`.
 */
export function buildViesEnvelope(check: UpstreamCheck, requester: ViesRequester | null): string {
  const { trader } = check;
  const operation = requester === null && trader === undefined ? "checkVat" : "checkVatApprox";
  const fields = [element("countryCode", check.prefix), element("vatNumber", check.number)];
  for (const [key, name] of TRADER_ELEMENTS) {
    const value = trader?.[key];
    if (value !== undefined) fields.push(element(name, value));
  }
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
