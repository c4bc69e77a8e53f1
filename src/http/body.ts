import { ApiError } from "../kernel/errors.ts";
import { readMatchRequest } from "../matching/request.ts";
import { ValidateRequestSchema } from "./schemas.ts";

const PAYLOAD_TOO_LARGE = 413;

/**
 * The string fields of a request schema. A JSON body's string fields are checked by its parser
 * (`requireStrings`) rather than by Elysia: Elysia's validation error interpolates the offending
 * value into a message, which throws for `{"toString": 1}` and overflows the stack for deeply
 * nested arrays.
 */
export function stringFieldsOf(schema: { properties: Record<string, { type?: unknown }> }): string[] {
  return Object.entries(schema.properties)
    .filter(([, property]) => property.type === "string")
    .map(([name]) => name);
}

/** Refuses a body whose `fields`, where present, are not strings. */
export function requireStrings(body: Record<string, unknown>, fields: readonly string[]): void {
  for (const field of fields) {
    if (Object.hasOwn(body, field) && typeof body[field] !== "string") {
      throw new ApiError("invalid_request", `\`${field}\` must be a string`);
    }
  }
}

const STRING_FIELDS = stringFieldsOf(ValidateRequestSchema);
const utf8 = new TextDecoder("utf-8", { fatal: true });

function tooLarge(maxBytes: number): ApiError {
  return new ApiError("invalid_request", `the body must be at most ${maxBytes} bytes`, {
    status: PAYLOAD_TOO_LARGE,
  });
}

/**
 * Reads at most `maxBytes` of a request body. A declared Content-Length over the bound is
 * refused before reading; a chunked body is refused as soon as it crosses the bound, so an
 * oversized body is never buffered whole.
 */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  // A declared length within the bound is what HTTP framing will deliver: read it at once.
  if (declared !== null && /^\d+$/.test(declared)) return new Uint8Array(await request.arrayBuffer());
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * Reads a JSON object body within the size bound; `expected` says what it should be when it
 * is not an object. Whatever the Content-Type says, the body is read as JSON: `curl -d` sends
 * form encoding by default and the intent is unambiguous.
 */
export async function readJsonObject(
  request: Request,
  maxBytes: number,
  expected: string,
): Promise<Record<string, unknown>> {
  const bytes = await readBoundedBody(request, maxBytes);
  if (bytes.byteLength === 0) throw new ApiError("invalid_request", "a JSON body is required");
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError("invalid_request", "the body is not valid UTF-8");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_request", "the body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("invalid_request", `the body must be ${expected}`);
  }
  return value as Record<string, unknown>;
}

/** The body of POST /validate: a JSON object within the size bound, its fields' types checked. */
export async function parseJsonObjectBody(
  request: Request,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const body = await readJsonObject(request, maxBytes, "a JSON object with a `vat` and/or an `iban` string");
  requireStrings(body, STRING_FIELDS);
  // Checked here for the same reason, and with the blank fields dropped.
  if (Object.hasOwn(body, "match")) body.match = readMatchRequest(body.match);
  return body;
}
