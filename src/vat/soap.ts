import { XMLParser } from "fast-xml-parser";

/**
 * Reading the SOAP answers of the upstream services (VIES, the Swiss UID register) by local
 * names: prefixes change over the years (`soap:` before 2022, `env:`/`ns2:` at VIES now, `s:`
 * at the UID register), the structure does not.
 */
function parserFor(repeated: ReadonlySet<string>): XMLParser {
  return new XMLParser({
    removeNSPrefix: true,
    // Values stay strings: a Belgian `0123456789` must not become a number.
    parseTagValue: false,
    // Addresses carry meaningful inner newlines; normalization happens in `disclosed`.
    trimValues: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    // The only way in this version to decode numeric character references (`&#xD;`, `&#233;`).
    htmlEntities: true,
    isArray: (name) => repeated.has(name),
  });
}

/**
 * A reader of one service's envelopes: `repeated` names the elements that may come more than
 * once (read as lists even when there is one). It gives the envelope's Body, or null for what
 * is not a SOAP envelope (error pages, garbage, truncated XML).
 */
export function soapBodyReader(repeated: readonly string[] = []): (body: string) => unknown | null {
  const parser = parserFor(new Set(repeated));
  return (body) => {
    let document: unknown;
    try {
      document = parser.parse(body, true);
    } catch {
      return null;
    }
    return child(child(document, "Envelope"), "Body") ?? null;
  };
}

export type XmlNode = Record<string, unknown>;

export function isXmlNode(node: unknown): node is XmlNode {
  return typeof node === "object" && node !== null && !Array.isArray(node);
}

/** The child element of that local name (a list when it is a repeated one); undefined when missing. */
export function child(node: unknown, name: string): unknown {
  return isXmlNode(node) ? node[name] : undefined;
}
