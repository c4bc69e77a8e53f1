import { ApiError } from "../kernel/errors.ts";
import { MATCH_FIELDS, MATCH_VALUE_MAX_LENGTH, type MatchField, type MatchRequest } from "./schema.ts";

const refuse = (message: string) => new ApiError("invalid_request", message);

const isMatchField = (key: string): key is MatchField => (MATCH_FIELDS as readonly string[]).includes(key);

/**
 * A `match` object as a request or a batch item sends it, checked: an object of known fields
 * whose values are strings of at most 200 characters, without NUL or lone surrogates (they are
 * stored); blank ones count as not
 * sent, and at least one must be left. Unknown fields are refused rather than ignored: a
 * misspelt field would otherwise go unmatched without a word. `where` prefixes the messages.
 */
export function readMatchRequest(value: unknown, where = ""): MatchRequest {
  const prefix = where === "" ? "" : `${where}: `;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw refuse(`${prefix}\`match\` must be an object with any of ${MATCH_FIELDS.join(", ")}`);
  }
  const match: MatchRequest = {};
  for (const [key, given] of Object.entries(value)) {
    if (!isMatchField(key)) {
      throw refuse(`${prefix}\`match\` has no field \`${key}\`; it takes ${MATCH_FIELDS.join(", ")}`);
    }
    if (typeof given !== "string") throw refuse(`${prefix}\`match.${key}\` must be a string`);
    if (given.includes("\u0000")) throw refuse(`${prefix}\`match.${key}\` must not contain a NUL character`);
    // Stored as jsonb, which holds Unicode: half of a UTF-16 pair alone (`"\ud800"`) is not.
    if (!given.isWellFormed()) {
      throw refuse(`${prefix}\`match.${key}\` must not contain a lone UTF-16 surrogate (\\ud800–\\udfff)`);
    }
    if (given.length > MATCH_VALUE_MAX_LENGTH) {
      throw refuse(
        `${prefix}\`match.${key}\` must be at most ${MATCH_VALUE_MAX_LENGTH} characters, got ${given.length}`,
      );
    }
    if (given.trim() !== "") match[key] = given;
  }
  if (Object.keys(match).length === 0) {
    throw refuse(`${prefix}\`match\` needs at least one of ${MATCH_FIELDS.join(", ")}, not blank`);
  }
  return match;
}
