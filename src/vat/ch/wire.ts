import { disclosed } from "../disclosed.ts";
import { child, isXmlNode, soapBodyReader } from "../soap.ts";

const SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/";
const UID_WSE = "http://www.uid.admin.ch/xmlns/uid-wse";
const ECH_0097 = "http://www.ech.ch/xmlns/eCH-0097/5";

/** The service path of the public services, interface version 5.0. */
export const UID_SERVICE_PATH = "/V5.0/PublicServices.svc";

/** SOAP 1.1 action of GetByUID, quoted as the WCF endpoint's clients send it. */
export const GET_BY_UID_ACTION = `"${UID_WSE}/IPublicServices/GetByUID"`;

/**
 * The GetByUID request for the 9 digits of a UID: the operation in the service's namespace, the
 * UID's two parts in eCH-0097's.
 */
export function getByUidEnvelope(digits: string): string {
  return (
    `<soapenv:Envelope xmlns:soapenv="${SOAP_ENV}" xmlns:uid="${UID_WSE}" xmlns:ech="${ECH_0097}">` +
    "<soapenv:Header/><soapenv:Body><uid:GetByUID><uid:uid>" +
    "<ech:uidOrganisationIdCategorie>CHE</ech:uidOrganisationIdCategorie>" +
    `<ech:uidOrganisationId>${digits.replace(/\D/g, "")}</ech:uidOrganisationId>` +
    "</uid:uid></uid:GetByUID></soapenv:Body></soapenv:Envelope>"
  );
}

/** One organisation record of the register, as much of it as a VAT answer needs. */
export type UidRecord = {
  name: string | null;
  /** The legal address: street and number, then postcode and town (and the country when not CH). */
  address: string | null;
  /** Entered in the VAT register and active: `vatStatus` 2 and `vatEntryStatus` 1. */
  vatRegistered: boolean;
};

export type UidResponse =
  /** GetByUID's result: none for an unknown UID, several for a UID with several register entries. */
  | { kind: "records"; records: UidRecord[] }
  /** A SOAP fault: the `error` of its detail when it has one (`Request_limit_exceeded`), else the faultstring. */
  | { kind: "fault"; error: string };

const readBody = soapBodyReader(["organisationType", "address"]);

const list = (node: unknown): unknown[] => (Array.isArray(node) ? node : node === undefined ? [] : [node]);

/** An element's text, trimmed; empty elements and missing ones alike are null. */
function text(node: unknown): string | null {
  const value =
    typeof node === "string" ? node : typeof child(node, "#text") === "string" ? child(node, "#text") : null;
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** The legal address (else the first), as lines: extra lines, `street number`, `postcode town`. */
function addressOf(organisation: unknown): string | null {
  const addresses = list(child(organisation, "address"));
  const legal =
    addresses.find((address) => text(child(address, "addressCategory")) === "LEGAL") ?? addresses[0];
  if (legal === undefined) return null;
  const part = (name: string) => text(child(legal, name));
  const street = [part("street"), part("houseNumber")].filter((value) => value !== null).join(" ");
  const place = [part("swissZipCode") ?? part("foreignZipCode"), part("town")]
    .filter((v) => v !== null)
    .join(" ");
  const country = part("countryIdISO2");
  const lines = [
    part("addressLine1"),
    part("addressLine2"),
    street,
    place,
    country === "CH" ? null : country,
  ];
  return disclosed(lines.filter((line) => line !== null && line !== "").join("\n"));
}

function recordOf(organisationType: unknown): UidRecord {
  const organisation = child(organisationType, "organisation");
  const register = child(organisation, "organisation");
  const identification = child(register, "organisationIdentification");
  const vat = child(organisation, "vatRegisterInformation");
  return {
    name: disclosed(
      text(child(identification, "organisationLegalName")) ?? text(child(identification, "organisationName")),
    ),
    address: addressOf(register),
    vatRegistered: text(child(vat, "vatStatus")) === "2" && text(child(vat, "vatEntryStatus")) === "1",
  };
}

/**
 * Reads a GetByUID response body by local names: a fault first, then the records of
 * `GetByUIDResult`. Null for anything that is not such an envelope (error pages, garbage).
 */
export function parseUidResponse(body: string): UidResponse | null {
  const soapBody = readBody(body);
  if (soapBody === null) return null;
  const fault = child(soapBody, "Fault");
  if (fault !== undefined) {
    const detail = child(fault, "detail");
    const typed = isXmlNode(detail)
      ? Object.values(detail).find((value) => child(value, "error") !== undefined)
      : undefined;
    return { kind: "fault", error: text(child(typed, "error")) ?? text(child(fault, "faultstring")) ?? "" };
  }
  const response = child(soapBody, "GetByUIDResponse");
  if (response === undefined) return null;
  return {
    kind: "records",
    records: list(child(child(response, "GetByUIDResult"), "organisationType")).map(recordOf),
  };
}
