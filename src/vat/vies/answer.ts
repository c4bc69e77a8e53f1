import type { AuthorityMatchCode, TraderDetails } from "../upstream.ts";

/** The member state's codes per trader detail it was asked to compare. */
export type MatchCodes = Partial<Record<keyof TraderDetails, AuthorityMatchCode>>;

/** A normal VIES answer, from either door, its fields already normalized. */
export type ViesAnswer = {
  kind: "answer";
  valid: boolean;
  name: string | null;
  address: string | null;
  /** The consultation number; null when absent or empty. */
  requestIdentifier: string | null;
  /** The approximate-match codes; null when the answer carries none. */
  traderMatch: MatchCodes | null;
};

/**
 * Reads the match codes of an answer: `code(field)` gives the raw value a door sent for a
 * field, `meaning` what it stands for. Values neither door defines are left out; an answer
 * without any known code has none (null).
 */
export function readMatchCodes(
  code: (field: keyof TraderDetails) => unknown,
  meaning: ReadonlyMap<string, AuthorityMatchCode>,
): MatchCodes | null {
  const codes: MatchCodes = {};
  for (const field of TRADER_FIELDS) {
    const raw = code(field);
    const read =
      typeof raw === "string" || typeof raw === "number" ? meaning.get(String(raw).trim()) : undefined;
    if (read !== undefined) codes[field] = read;
  }
  return Object.keys(codes).length > 0 ? codes : null;
}

export const TRADER_FIELDS: ReadonlyArray<keyof TraderDetails> = [
  "name",
  "companyType",
  "street",
  "postcode",
  "city",
];
