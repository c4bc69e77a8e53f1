/**
 * Namespace-aware reading of SOAP requests for the fakes, the way a schema-bound endpoint reads
 * them: every element is known by its namespace and local name, whatever prefix it was given.
 */
import { XMLParser } from "fast-xml-parser";

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  htmlEntities: true,
});

export type Scope = ReadonlyMap<string, string>;
type Found = { node: unknown; scope: Scope };

function attributes(node: unknown): Record<string, string> {
  if (typeof node !== "object" || node === null) return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("@_") && typeof value === "string") out[key.slice(2)] = value;
  }
  return out;
}

function withDeclarations(scope: Scope, node: unknown): Scope {
  const next = new Map(scope);
  for (const [name, value] of Object.entries(attributes(node))) {
    if (name === "xmlns") next.set("", value);
    else if (name.startsWith("xmlns:")) next.set(name.slice(6), value);
  }
  return next;
}

/** The children of a node, each with its namespace (declarations in scope applied) and local name. */
export function qualifiedChildren(
  node: unknown,
  scope: Scope,
): { namespace: string; local: string; found: Found }[] {
  if (typeof node !== "object" || node === null) return [];
  const out: { namespace: string; local: string; found: Found }[] = [];
  for (const [tag, value] of Object.entries(node)) {
    if (tag.startsWith("@_") || tag === "#text") continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      const childScope = withDeclarations(scope, item);
      const colon = tag.indexOf(":");
      const prefix = colon === -1 ? "" : tag.slice(0, colon);
      const local = colon === -1 ? tag : tag.slice(colon + 1);
      out.push({ namespace: childScope.get(prefix) ?? "", local, found: { node: item, scope: childScope } });
    }
  }
  return out;
}

export function textOf(node: unknown): string {
  if (typeof node === "string") return node;
  if (typeof node === "object" && node !== null && "#text" in node) return String(node["#text"]);
  return "";
}

/** Parses a document; throws on XML that is not well-formed. */
export function readXml(xml: string): unknown {
  return parser.parse(xml, true);
}
