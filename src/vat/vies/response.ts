import { XMLParser } from "fast-xml-parser";

/** A normal checkVat / checkVatApprox answer, fields already normalized. */
export type ViesAnswer = {
  kind: "answer";
  valid: boolean;
  name: string | null;
  address: string | null;
  /** The consultation number; null when absent or empty. */
  requestIdentifier: string | null;
};

/** A SOAP fault; the whole code is the `faultstring` (VIES sends no `<detail>`). */
export type ViesSoapFault = { kind: "soapFault"; faultString: string };

export type ViesResponse = ViesAnswer | ViesSoapFault;

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

/**
 * Turns a name or address as VIES sends it into what we return: line endings normalized to
 * `\n`, every line trimmed, blank lines dropped, lines joined with `\n`. `---`, empty,
 * whitespace-only and missing all mean "not disclosed" (null).
 */
export function disclosed(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const lines = raw
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const value = lines.join("\n");
  return value === "" || value === "---" ? null : value;
}

// xsd:boolean: VIES writes true/false, but 1/0 are the same values.
const XSD_BOOLEAN = new Map([
  ["true", true],
  ["1", true],
  ["false", false],
  ["0", false],
]);

function answer(response: unknown, approx: boolean): ViesAnswer | null {
  const valid = XSD_BOOLEAN.get(text(child(response, "valid"))?.trim() ?? "");
  if (valid === undefined) return null;
  const identifier = text(child(response, "requestIdentifier"))?.trim();
  return {
    kind: "answer",
    valid,
    name: disclosed(text(child(response, approx ? "traderName" : "name"))),
    address: disclosed(text(child(response, approx ? "traderAddress" : "address"))),
    requestIdentifier: identifier ? identifier : null,
  };
}

/**
 * Reads a VIES SOAP response body, namespace-agnostically. A fault is looked for first; then a
 * `checkVatResponse` or `checkVatApproxResponse` with a `valid` of `true`/`false`. Anything
 * else (HTML error pages, truncated or foreign XML, plain text) gives null.
 */
export function parseViesResponse(body: string): ViesResponse | null {
  let document: unknown;
  try {
    document = parser.parse(body, true);
  } catch {
    return null;
  }
  const soapBody = child(child(document, "Envelope"), "Body");
  const fault = child(soapBody, "Fault");
  if (fault !== undefined) {
    return { kind: "soapFault", faultString: text(child(fault, "faultstring"))?.trim() ?? "" };
  }
  const plain = child(soapBody, "checkVatResponse");
  if (plain !== undefined) return answer(plain, false);
  const approx = child(soapBody, "checkVatApproxResponse");
  if (approx !== undefined) return answer(approx, true);
  return null;
}
