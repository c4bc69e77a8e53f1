/** Reading the JSON the upstream services answer with. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The body parsed, or undefined when it is not JSON; a byte-order mark before it is skipped. */
export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
}

/** The body as a JSON object, or null for anything else (HTML, empty, arrays, garbage). */
export function parseJsonObject(body: string): Record<string, unknown> | null {
  const parsed = parseJson(body);
  return isRecord(parsed) ? parsed : null;
}
