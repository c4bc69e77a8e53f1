/**
 * The domestic account details a build request carries, read as people write them: separators dropped,
 * letters upper-cased, and every refusal saying exactly what is wrong.
 */

/** The parts of a domestic account number, as sent (any of them may be missing). */
export interface DomesticParts {
  bank_code?: string;
  branch_code?: string;
  account_number?: string;
}

export type BuildRefusal = { code: "invalid_format" | "invalid_request"; message: string };
/** A BBAN, or why none can be built from the parts. */
export type Bban = { bban: string } | { refusal: BuildRefusal };

export const malformed = (message: string): Bban => ({ refusal: { code: "invalid_format", message } });
export const missing = (message: string): Bban => ({ refusal: { code: "invalid_request", message } });

/**
 * Spaces, dashes (also typographic ones), dots and the invisible characters copy and paste brings along:
 * the separators account numbers are printed with. A slash is not one: in a Czech or Slovak number it
 * parts the account from the bank.
 */
const SEPARATORS = /[\s\u00ad\u200b-\u200d\u2060\ufeff.\-\u2010-\u2015\u2212]/g;

/** `text` without separators, upper-cased; "" for a part not sent. */
export function compact(text: string | undefined): string {
  return text === undefined ? "" : text.replace(SEPARATORS, "").toUpperCase();
}

/** Whether `text` is `min` to `max` ASCII digits. */
export function isDigits(text: string, min: number, max = min): boolean {
  return text.length >= min && text.length <= max && /^[0-9]*$/.test(text);
}

/** How a part must be written, for messages: "8 digits", "1 to 10 digits". */
export function digitsRule(min: number, max = min): string {
  return min === max ? `${min} digits` : `${min} to ${max} digits`;
}

/** A part as it was sent, quoted for a message. */
export function quoted(text: string | undefined): string {
  return JSON.stringify(text ?? "");
}
