/**
 * The VIES wire formats as the fake speaks them: request parsing (namespace-aware, like the
 * real JAX-WS endpoint), response envelopes byte-shaped like the recorded ones, the HTML error
 * pages, and Jackson-style JSON for the REST API.
 */
import { qualifiedChildren as children, readXml, textOf } from "./soap-xml.ts";

export const SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/";
export const VIES_TYPES = "urn:ec.europa.eu:taxud:vies:services:checkVat:types";

/** The codes the SOAP service accepts, in the order VIES lists them. */
export const VIES_COUNTRIES = [
  "AT",
  "BE",
  "BG",
  "CY",
  "CZ",
  "DE",
  "DK",
  "EE",
  "EL",
  "ES",
  "FI",
  "FR",
  "HR",
  "HU",
  "IE",
  "IT",
  "LT",
  "LU",
  "LV",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SE",
  "SI",
  "SK",
  "XI",
] as const;

/** `vatNumber` pattern from the WSDL. */
export const VAT_NUMBER_PATTERN = /^[0-9A-Za-z+*.]{2,12}$/;

export type ViesOperation = "checkVat" | "checkVatApprox";

/** The trader details of an approximate check, whichever door they came through. */
export type TraderField = "name" | "companyType" | "street" | "postcode" | "city";
export type TraderFields = Partial<Record<TraderField, string>>;

/** The SOAP element of each trader detail, in the order of the WSDL's sequence. */
export const SOAP_TRADER_ELEMENTS: ReadonlyArray<[TraderField, string]> = [
  ["name", "traderName"],
  ["companyType", "traderCompanyType"],
  ["street", "traderStreet"],
  ["postcode", "traderPostcode"],
  ["city", "traderCity"],
];

export type ViesSoapRequest = {
  operation: ViesOperation;
  countryCode: string;
  vatNumber: string;
  /** Only for checkVatApprox; empty string when the element is absent. */
  requesterCountryCode: string;
  requesterVatNumber: string;
  /** Only for checkVatApprox: the trader elements sent, as sent. */
  trader: TraderFields;
};

/** A request the endpoint refuses before reaching the business logic, with CXF's wording. */
export type ViesClientError = { clientError: string };

const CHECK_VAT_FIELDS = ["countryCode", "vatNumber"];

/** The request elements each operation's schema allows. */
const REQUEST_FIELDS: Record<ViesOperation, ReadonlySet<string>> = {
  checkVat: new Set(CHECK_VAT_FIELDS),
  checkVatApprox: new Set([
    ...CHECK_VAT_FIELDS,
    ...SOAP_TRADER_ELEMENTS.map(([, element]) => element),
    "requesterCountryCode",
    "requesterVatNumber",
  ]),
};

/**
 * Parses a checkVat / checkVatApprox request the way a schema-bound endpoint does: envelope in
 * the SOAP 1.1 namespace, operation and every field in the types namespace (the schema is
 * `elementFormDefault="qualified"`, so unqualified children are refused).
 */
export function parseSoapRequest(xml: string): ViesSoapRequest | ViesClientError {
  let document: unknown;
  try {
    document = readXml(xml);
  } catch {
    return { clientError: "Error reading XMLStreamReader." };
  }
  const envelope = children(document, new Map()).find((c) => c.local === "Envelope");
  if (envelope?.namespace !== SOAP_ENV) return { clientError: "Error reading XMLStreamReader." };
  const body = children(envelope.found.node, envelope.found.scope).find(
    (c) => c.namespace === SOAP_ENV && c.local === "Body",
  );
  const operation = body ? children(body.found.node, body.found.scope)[0] : undefined;
  if (
    operation === undefined ||
    operation.namespace !== VIES_TYPES ||
    (operation.local !== "checkVat" && operation.local !== "checkVatApprox")
  ) {
    const name = operation ? `{${operation.namespace}}${operation.local}` : "(none)";
    return { clientError: `Unexpected wrapper element ${name} found.` };
  }
  const allowed = REQUEST_FIELDS[operation.local];
  const fields = new Map<string, string>();
  for (const field of children(operation.found.node, operation.found.scope)) {
    if (field.namespace !== VIES_TYPES || !allowed.has(field.local)) {
      return {
        clientError: `Unmarshalling Error: unexpected element (uri:"${field.namespace}", local:"${field.local}").`,
      };
    }
    fields.set(field.local, textOf(field.found.node));
  }
  const trader: TraderFields = {};
  for (const [field, element] of SOAP_TRADER_ELEMENTS) {
    const value = fields.get(element);
    if (value !== undefined) trader[field] = value;
  }
  return {
    operation: operation.local,
    countryCode: fields.get("countryCode") ?? "",
    vatNumber: fields.get("vatNumber") ?? "",
    requesterCountryCode: fields.get("requesterCountryCode") ?? "",
    requesterVatNumber: fields.get("requesterVatNumber") ?? "",
    trader,
  };
}

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

function escapeText(value: string): string {
  return value.replace(/[&<>]/g, (char) => XML_ESCAPES[char] ?? char);
}

/** An approximate-match code as checkVatApprox sends it: 1 VALID, 2 INVALID, 3 NOT_PROCESSED. */
export type MatchCode = 1 | 2 | 3;

export type ViesAnswerFields = {
  operation: ViesOperation;
  countryCode: string;
  vatNumber: string;
  requestDate: string;
  valid: boolean;
  name: string;
  /** Null leaves the element out (checkVatApprox for a state that discloses nothing, as in the ES sample). */
  address: string | null;
  requestIdentifier: string;
  /** checkVatApprox only: the company type, street, postcode and city sent back, as sent. */
  echoes?: Omit<TraderFields, "name">;
  /** checkVatApprox only: the code of each trader detail, for a request that sent some. */
  codes?: Record<TraderField, MatchCode>;
};

/** A success body as VIES sends it since 2022: one line, no XML declaration, `env:`/`ns2:`. */
export function answerEnvelope(a: ViesAnswerFields): string {
  const ns2 = (tag: string, value: string) => `<ns2:${tag}>${escapeText(value)}</ns2:${tag}>`;
  const head = [
    ns2("countryCode", a.countryCode),
    ns2("vatNumber", a.vatNumber),
    ns2("requestDate", a.requestDate),
    ns2("valid", String(a.valid)),
  ];
  const echoes = a.echoes ?? {};
  // The WSDL's order: name, company type, address, the echoed street, postcode and city, the codes.
  const tail =
    a.operation === "checkVat"
      ? [ns2("name", a.name), ns2("address", a.address ?? "---")]
      : [
          ns2("traderName", a.name),
          ns2("traderCompanyType", echoes.companyType ?? "---"),
          ...(a.address === null ? [] : [ns2("traderAddress", a.address)]),
          ...SOAP_TRADER_ELEMENTS.slice(2).flatMap(([field, element]) => {
            const echoed = echoes[field as Exclude<TraderField, "name">];
            return echoed === undefined ? [] : [ns2(element, echoed)];
          }),
          ...(a.codes === undefined
            ? []
            : SOAP_TRADER_ELEMENTS.map(([field, element]) =>
                ns2(`${element}Match`, String(a.codes?.[field])),
              )),
          ns2("requestIdentifier", a.requestIdentifier),
        ];
  const response = `${a.operation}Response`;
  return (
    `<env:Envelope xmlns:env="${SOAP_ENV}"><env:Header/><env:Body>` +
    `<ns2:${response} xmlns:ns2="${VIES_TYPES}">${[...head, ...tail].join("")}</ns2:${response}>` +
    "</env:Body></env:Envelope>"
  );
}

/**
 * A fault body. `env` is the current shape; `soap` the pre-2022 one (no Header, `soap:` prefix).
 * VIES uses faultcode Server for every business fault, Client for requests it cannot read.
 */
export function faultEnvelope(
  faultString: string,
  style: "env" | "soap",
  faultCode: "Server" | "Client",
): string {
  if (style === "soap") {
    return (
      `<soap:Envelope xmlns:soap="${SOAP_ENV}"><soap:Body><soap:Fault>` +
      `<faultcode>soap:${faultCode}</faultcode><faultstring>${escapeText(faultString)}</faultstring>` +
      "</soap:Fault></soap:Body></soap:Envelope>"
    );
  }
  return (
    `<env:Envelope xmlns:env="${SOAP_ENV}"><env:Header/><env:Body><env:Fault>` +
    `<faultcode>env:${faultCode}</faultcode><faultstring>${escapeText(faultString)}</faultstring>` +
    "</env:Fault></env:Body></env:Envelope>"
  );
}

/** The WebLogic page VIES has answered with to a wrong Content-Type since August 2022. */
export const WEBLOGIC_500_PAGE = `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.0 Draft//EN">
<HTML>
<HEAD>
<TITLE>Error 500--Internal Server Error</TITLE>
</HEAD>
<BODY bgcolor="white">
<FONT FACE=Helvetica><BR CLEAR=all>
<TABLE border=0 cellspacing=5><TR><TD><BR CLEAR=all>
<FONT FACE="Helvetica" COLOR="black" SIZE="3"><H2>Error 500--Internal Server Error</H2>
</FONT></TD></TR>
</TABLE>
<TABLE border=0 width=100% cellpadding=10><TR><TD VALIGN=top WIDTH=100% BGCOLOR=white><FONT FACE="Courier New"><FONT FACE="Helvetica" SIZE="3"><H3>From RFC 2068 <i>Hypertext Transfer Protocol -- HTTP/1.1</i>:</H3>
</FONT><FONT FACE="Helvetica" SIZE="3"><H4>10.5.1 500 Internal Server Error</H4>
</FONT><P><FONT FACE="Courier New">The server encountered an unexpected condition which prevented it from fulfilling the request.</FONT></P>
</FONT></TD></TR>
</TABLE>

</BODY>
</HTML>
`;

const brusselsFormat = new Intl.DateTimeFormat("en-CA", {
  timeZone: "Europe/Brussels",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  timeZoneName: "longOffset",
});

/** `requestDate` as VIES writes it: the Brussels date with its offset, `2023-08-11+02:00`. */
export function brusselsRequestDate(epochMs: number): string {
  const parts = Object.fromEntries(
    brusselsFormat.formatToParts(new Date(epochMs)).map((p) => [p.type, p.value]),
  );
  const offset = (parts.timeZoneName ?? "GMT").replace("GMT", "") || "+00:00";
  return `${parts.year}-${parts.month}-${parts.day}${offset}`;
}

const IDENTIFIER_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A consultation number in the observed shape: 16 characters starting with `WAPI`. */
export function newRequestIdentifier(): string {
  const random = crypto.getRandomValues(new Uint8Array(12));
  return `WAPI${Array.from(random, (byte) => IDENTIFIER_ALPHABET[byte % IDENTIFIER_ALPHABET.length]).join("")}`;
}

/**
 * JSON in Jackson's DefaultPrettyPrinter style, as the VIES REST API sends it:
 * `"key" : value`, objects indented by two spaces per level, arrays inline as `[ {` … `} ]`.
 */
export function jacksonStringify(value: unknown, depth = 0): string {
  if (Array.isArray(value)) {
    return value.length === 0
      ? "[ ]"
      : `[ ${value.map((item) => jacksonStringify(item, depth)).join(", ")} ]`;
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{ }";
    const pad = "  ".repeat(depth + 1);
    const body = entries.map(
      ([key, item]) => `${pad}${JSON.stringify(key)} : ${jacksonStringify(item, depth + 1)}`,
    );
    return `{\n${body.join(",\n")}\n${"  ".repeat(depth)}}`;
  }
  return JSON.stringify(value);
}

/** A REST `check-vat-number` request as the fake reads it; absent fields are empty strings. */
export type ViesRestRequest = {
  countryCode: string;
  vatNumber: string;
  requesterMemberStateCode: string;
  requesterNumber: string;
  trader: TraderFields;
};

/** The REST name of each trader detail, in the contract's order (REST says `traderPostalCode`). */
export const REST_TRADER_KEYS: ReadonlyArray<[TraderField, string]> = [
  ["name", "traderName"],
  ["street", "traderStreet"],
  ["postcode", "traderPostalCode"],
  ["city", "traderCity"],
  ["companyType", "traderCompanyType"],
];

const REST_REQUEST_KEYS = new Set([
  "countryCode",
  "vatNumber",
  "requesterMemberStateCode",
  "requesterNumber",
  ...REST_TRADER_KEYS.map(([, key]) => key),
]);

/**
 * Reads a `CheckVatRequest` the way a Jackson-bound endpoint does: a JSON object whose known
 * fields are strings or null; unknown fields are ignored. Null when the body cannot be bound
 * (not JSON, not an object, a field of another type): Spring answers that with its own 400.
 */
export function parseRestRequest(body: string): ViesRestRequest | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const fields = new Map<string, string>();
  for (const [key, given] of Object.entries(value)) {
    if (!REST_REQUEST_KEYS.has(key) || given === null) continue;
    if (typeof given !== "string") return null;
    fields.set(key, given);
  }
  const trader: TraderFields = {};
  for (const [field, key] of REST_TRADER_KEYS) {
    const given = fields.get(key);
    if (given !== undefined && given !== "") trader[field] = given;
  }
  return {
    countryCode: fields.get("countryCode") ?? "",
    vatNumber: fields.get("vatNumber") ?? "",
    requesterMemberStateCode: fields.get("requesterMemberStateCode") ?? "",
    requesterNumber: fields.get("requesterNumber") ?? "",
    trader,
  };
}

/** The REST `Status` enum for each approximate-match code. */
const REST_MATCH: Record<MatchCode, string> = { 1: "VALID", 2: "INVALID", 3: "NOT_PROCESSED" };

export type ViesRestAnswerFields = {
  countryCode: string;
  vatNumber: string;
  requestDate: string;
  valid: boolean;
  requestIdentifier: string;
  name: string;
  address: string;
  /** Each trader field as sent back (`---` when none was sent; ES has been seen sending null). */
  echoes: Record<TraderField, string | null>;
  codes: Record<TraderField, MatchCode>;
};

/** A `CheckVatResponse` in the contract's field order (the ViesSharp capture's order). */
export function restAnswer(a: ViesRestAnswerFields): Record<string, unknown> {
  const answer: Record<string, unknown> = {
    countryCode: a.countryCode,
    vatNumber: a.vatNumber,
    requestDate: a.requestDate,
    valid: a.valid,
    requestIdentifier: a.requestIdentifier,
    name: a.name,
    address: a.address,
  };
  for (const [field, key] of REST_TRADER_KEYS) answer[key] = a.echoes[field];
  for (const [field, key] of REST_TRADER_KEYS) answer[`${key}Match`] = REST_MATCH[a.codes[field]];
  return answer;
}

/** The REST error envelope (`CommonResponse`), as captured: the code in `error`, no `message`. */
export function restError(error: string): Record<string, unknown> {
  return { actionSucceed: false, errorWrappers: [{ error }] };
}

/** Spring Boot's default error body, for a request the endpoint cannot bind. */
export function springError(status: number, reason: string, path: string, epochMs: number) {
  return { timestamp: new Date(epochMs).toISOString(), status, error: reason, path };
}
