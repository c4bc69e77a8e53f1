/**
 * A local Swiss UID register (the BFS "UID-WSE" public services, interface 5.0) over real HTTP:
 * `GetByUID` as a WCF endpoint answers it (SOAP 1.1, the SOAPAction checked, the request read
 * by namespace), the register's faults (`Data_validation_failed`, `Request_limit_exceeded` past
 * its per-minute limit), and the outage shapes of any web service.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type EndpointControls,
  fakeEndpoint,
  html,
  type OutageBehaviour,
  performOutage,
  proxyErrorPage,
  type Reply,
  readBody,
  startRawServer,
} from "./raw-http.ts";
import { qualifiedChildren, readXml, textOf } from "./soap-xml.ts";

export const UID_SERVICE_PATH = "/V5.0/PublicServices.svc";

const SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/";
const UID_WSE = "http://www.uid.admin.ch/xmlns/uid-wse";
const UID_WSE_5 = "http://www.uid.admin.ch/xmlns/uid-wse/5";
const SHARED = "http://www.uid.admin.ch/xmlns/uid-wse-shared/2";
const ECH_0097 = "http://www.ech.ch/xmlns/eCH-0097/5";
const ECH_0098 = "http://www.ech.ch/xmlns/eCH-0098/5";
const ECH_0108 = "http://www.ech.ch/xmlns/eCH-0108/5";
const GET_BY_UID_ACTION = `${UID_WSE}/IPublicServices/GetByUID`;

/** One entry of a UID in the commercial registers (a UID can have several: one per seat). */
export type UidEntry = {
  name: string;
  /** eCH-0097 legal form code: `0106` AG, `0107` GmbH, `0101` sole proprietorship… */
  legalForm: string;
  address: {
    addressLine1?: string;
    street: string;
    houseNumber?: string;
    zip: string;
    town: string;
    canton: string;
  };
  /** Absent: not in the VAT register. */
  vat?: { vatStatus: string; vatEntryStatus: string };
};

export type UidBehaviour =
  /** A SOAP fault (HTTP 500) whose faultstring and detail error are `fault`. */
  { kind: "fault"; fault: string } | OutageBehaviour;

export type UidCall = { uid: string | null; soapAction: string | null; contentType: string | null };

export type UidRegisterFake = EndpointControls<UidBehaviour, UidCall> & {
  baseUrl: string;
  /** Keys are the 9 digits of the UID. */
  addUid(digits: string, entries: UidEntry[]): void;
  /** The register's own limit: past `perMinute` calls in the last 60 s, `Request_limit_exceeded`. */
  setRateLimit(perMinute: number | null): void;
  reset(): void;
  stop(): Promise<void>;
};

const UBS_ZURICH = { street: "Bahnhofstrasse", houseNumber: "45", zip: "8001", town: "Zürich", canton: "ZH" };
const REGISTERED = { vatStatus: "2", vatEntryStatus: "1" };

/**
 * Records in the shapes seen (vat-beyond-vies.md §3.1 and the captures it cites): a UID with two
 * register entries (UBS AG, Zürich and Basel), a sole proprietorship with a c/o line, a company
 * outside the VAT register, and one whose VAT registration ended.
 */
export const DEFAULT_UID_REGISTRY: Record<string, UidEntry[]> = {
  "101329561": [
    { name: "UBS AG", legalForm: "0106", address: UBS_ZURICH, vat: REGISTERED },
    {
      name: "UBS AG",
      legalForm: "0106",
      address: { street: "Aeschenvorstadt", houseNumber: "1", zip: "4051", town: "Basel", canton: "BS" },
      vat: REGISTERED,
    },
  ],
  "107185562": [
    {
      name: "Boulangerie Aubry",
      legalForm: "0101",
      address: {
        addressLine1: "p.a. Famille Aubry",
        street: "Rue Pierre Péquignat",
        houseNumber: "8",
        zip: "2800",
        town: "Delémont",
        canton: "JU",
      },
      vat: REGISTERED,
    },
  ],
  "319027296": [
    {
      name: "Aubry Carrelage Sàrl",
      legalForm: "0107",
      address: {
        street: "Route de Delémont",
        houseNumber: "12",
        zip: "2822",
        town: "Courroux",
        canton: "JU",
      },
    },
  ],
  "116281710": [
    {
      name: "Muster Handels GmbH",
      legalForm: "0107",
      address: { street: "Marktgasse", houseNumber: "3", zip: "3011", town: "Bern", canton: "BE" },
      vat: { vatStatus: "2", vatEntryStatus: "2" },
    },
  ],
};

const SOAP_HEADERS = { "Content-Type": "text/xml; charset=utf-8" };

const escapeXml = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const el = (name: string, value: string | undefined) =>
  value === undefined ? "" : `<${name}>${escapeXml(value)}</${name}>`;

function organisation(digits: string, entry: UidEntry): string {
  const { address } = entry;
  return (
    `<organisation><organisation xmlns="${ECH_0108}">` +
    `<organisationIdentification xmlns="${ECH_0098}">` +
    `<uid xmlns="${ECH_0097}"><uidOrganisationIdCategorie>CHE</uidOrganisationIdCategorie><uidOrganisationId>${digits}</uidOrganisationId></uid>` +
    el("organisationName", entry.name) +
    el("organisationLegalName", entry.name) +
    el("legalForm", entry.legalForm) +
    "</organisationIdentification><address>" +
    el("addressLine1", address.addressLine1) +
    "<addressCategory>LEGAL</addressCategory>" +
    el("street", address.street) +
    el("houseNumber", address.houseNumber) +
    el("town", address.town) +
    el("swissZipCode", address.zip) +
    el("cantonAbbreviation", address.canton) +
    "<countryIdISO2>CH</countryIdISO2></address></organisation>" +
    "<uidregInformation><uidregStatusEnterpriseDetail>3</uidregStatusEnterpriseDetail></uidregInformation>" +
    (entry.vat === undefined
      ? ""
      : `<vatRegisterInformation>${el("vatStatus", entry.vat.vatStatus)}${el("vatEntryStatus", entry.vat.vatEntryStatus)}</vatRegisterInformation>`) +
    "</organisation>"
  );
}

/** GetByUID's answer: the `ArrayOfOrganisationType`, empty for an unknown UID. */
function getByUidResponse(digits: string, entries: UidEntry[]): string {
  const types = entries
    .map(
      (entry) => `<organisationType xmlns="${UID_WSE_5}">${organisation(digits, entry)}</organisationType>`,
    )
    .join("");
  return (
    `<s:Envelope xmlns:s="${SOAP_ENV}"><s:Body><GetByUIDResponse xmlns="${UID_WSE}">` +
    `<GetByUIDResult>${types}</GetByUIDResult></GetByUIDResponse></s:Body></s:Envelope>`
  );
}

/** A typed fault as the register sends it: HTTP 500, the code as faultstring and as the detail's error. */
function uidFault(error: string, type = "businessFault", faultCode = "s:Client"): Reply {
  const body =
    `<s:Envelope xmlns:s="${SOAP_ENV}"><s:Body><s:Fault><faultcode>${faultCode}</faultcode>` +
    `<faultstring xml:lang="de-CH">${escapeXml(error)}</faultstring><detail><${type} xmlns="${UID_WSE}">` +
    `<operation xmlns="${SHARED}">GetByUID</operation><error xmlns="${SHARED}">${escapeXml(error)}</error>` +
    `<errorDetail xmlns="${SHARED}">${escapeXml(error)}</errorDetail></${type}></detail></s:Fault></s:Body></s:Envelope>`;
  return { status: 500, headers: SOAP_HEADERS, body };
}

/** WCF's own answer to an action no operation has. */
function actionNotSupported(action: string): Reply {
  const body =
    `<s:Envelope xmlns:s="${SOAP_ENV}"><s:Body><s:Fault><faultcode xmlns:a="http://schemas.microsoft.com/ws/2005/05/addressing/none">a:ActionNotSupported</faultcode>` +
    `<faultstring xml:lang="en-US">The message with Action '${escapeXml(action)}' cannot be processed at the receiver, due to a ContractFilter mismatch at the EndpointDispatcher.</faultstring>` +
    "</s:Fault></s:Body></s:Envelope>";
  return { status: 500, headers: SOAP_HEADERS, body };
}

/** The UID of a GetByUID request, read by namespace; null when the request is not one. */
function requestedUid(xml: string): { category: string; digits: string } | null {
  let document: unknown;
  try {
    document = readXml(xml);
  } catch {
    return null;
  }
  const envelope = qualifiedChildren(document, new Map()).find(
    (c) => c.local === "Envelope" && c.namespace === SOAP_ENV,
  );
  const body =
    envelope && qualifiedChildren(envelope.found.node, envelope.found.scope).find((c) => c.local === "Body");
  const operation = body && qualifiedChildren(body.found.node, body.found.scope)[0];
  if (operation?.namespace !== UID_WSE || operation.local !== "GetByUID") return null;
  const uid = qualifiedChildren(operation.found.node, operation.found.scope).find(
    (c) => c.namespace === UID_WSE && c.local === "uid",
  );
  if (!uid) return null;
  const parts = new Map(
    qualifiedChildren(uid.found.node, uid.found.scope)
      .filter((c) => c.namespace === ECH_0097)
      .map((c) => [c.local, textOf(c.found.node).trim()]),
  );
  return {
    category: parts.get("uidOrganisationIdCategorie") ?? "",
    digits: parts.get("uidOrganisationId") ?? "",
  };
}

export async function startUidRegisterFake(options: { now?: () => number } = {}): Promise<UidRegisterFake> {
  const now = options.now ?? Date.now;
  const registry = new Map<string, UidEntry[]>(Object.entries(DEFAULT_UID_REGISTRY));
  const endpoint = fakeEndpoint<UidBehaviour, UidCall>();
  let perMinute: number | null = null;
  const answered: number[] = [];

  const perform = (behaviour: UidBehaviour, request: IncomingMessage): Reply | null =>
    behaviour.kind === "fault" ? uidFault(behaviour.fault) : performOutage(server, behaviour, request);

  async function handle(request: IncomingMessage, _response: ServerResponse): Promise<Reply | null> {
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    const xml = await readBody(request);
    if (path !== UID_SERVICE_PATH || request.method !== "POST") return html(404, proxyErrorPage(404));
    const soapAction = typeof request.headers.soapaction === "string" ? request.headers.soapaction : null;
    const uid = requestedUid(xml);
    const contentType = request.headers["content-type"] ?? null;
    return endpoint.answer(
      { uid: uid?.digits ?? null, soapAction, contentType },
      (behaviour) => perform(behaviour, request),
      () => getByUid(soapAction, contentType, uid),
    );
  }

  /** What the register answers a call when no behaviour is set. */
  function getByUid(
    soapAction: string | null,
    contentType: string | null,
    uid: { category: string; digits: string } | null,
  ): Reply {
    const action = (soapAction ?? "").replace(/^"|"$/g, "");
    if (action !== GET_BY_UID_ACTION) return actionNotSupported(action);
    if (!(contentType ?? "").startsWith("text/xml")) return html(415, proxyErrorPage(415));
    const at = now();
    while (answered.length > 0 && (answered[0] ?? at) <= at - 60_000) answered.shift();
    if (perMinute !== null && answered.length >= perMinute) {
      return uidFault("Request_limit_exceeded", "securityFault");
    }
    answered.push(at);
    if (uid === null) return uidFault("Deserialization_failed", "infrastructureFault", "s:Client");
    if (uid.category !== "CHE" || !/^\d{9}$/.test(uid.digits)) return uidFault("Data_validation_failed");
    return {
      status: 200,
      headers: SOAP_HEADERS,
      body: getByUidResponse(uid.digits, registry.get(uid.digits) ?? []),
    };
  }

  const server = await startRawServer(handle);
  return {
    ...endpoint.controls,
    baseUrl: server.baseUrl,
    addUid(digits, entries) {
      registry.set(digits, entries);
    },
    setRateLimit(limit) {
      perMinute = limit;
    },
    reset() {
      registry.clear();
      for (const [digits, entries] of Object.entries(DEFAULT_UID_REGISTRY)) registry.set(digits, entries);
      endpoint.clear();
      perMinute = null;
      answered.length = 0;
      server.endParked();
    },
    stop: () => server.stop(),
  };
}
