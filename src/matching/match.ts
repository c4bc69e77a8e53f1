import type { AuthorityMatchCode, TraderDetails } from "../vat/upstream.ts";
import { type AddressParts, splitAddress } from "./address.ts";
import { citySimilarity, samePostcode, streetSimilarity } from "./address-similarity.ts";
import { type CountryLegalForms, sameLegalForm } from "./legal-forms.ts";
import { nameSimilarity } from "./name-similarity.ts";
import {
  type FieldMatch,
  MATCH_FIELDS,
  type MatchField,
  type MatchRequest,
  type MatchResult,
} from "./schema.ts";
import { nameWords } from "./words.ts";

/** The authority's record as disclosed: null parts were not disclosed. */
export type Registered = { name: string | null; address: string | null };

/** What the member state answered per field, in the upstream's terms; null when nothing. */
export type AuthorityCodes = Partial<Record<keyof TraderDetails, AuthorityMatchCode>> | null;

/** The codes a member state gave, read back from a match result (its fields answered `by: "authority"`). */
export function authorityCodesOf(result: MatchResult | null): AuthorityCodes {
  if (result === null) return null;
  const codes: Partial<Record<keyof TraderDetails, AuthorityMatchCode>> = {};
  for (const field of MATCH_FIELDS) {
    const answered = result[field];
    if (answered?.by === "authority") codes[TRADER_KEYS[field]] = answered.result;
  }
  return codes;
}

/**
 * The least similarity (0 to 1) at which a name, a street or a city counts as a match. Chosen on
 * the labelled pairs in test/fixtures/matching-pairs.json; `npm run bench:matching` reports the
 * precision and recall it gives, and those of its neighbours.
 */
export const MATCH_THRESHOLD = 0.8;

const TRADER_KEYS: Record<MatchField, keyof TraderDetails> = {
  name: "name",
  street: "street",
  postcode: "postcode",
  city: "city",
  company_type: "companyType",
};

/** VIES's company-type codes (`ES-1`): the only company type its approximate check takes. */
const VIES_COMPANY_TYPE = /^[A-Z]{2}-[1-9][0-9]?$/;

/**
 * The details to send to the authority for its own comparison. A company type goes only in
 * VIES's code form: a legal form written out (`GmbH`) is outside its schema and compared here.
 */
export function traderDetailsOf(request: MatchRequest): TraderDetails {
  const trader: TraderDetails = {};
  for (const field of MATCH_FIELDS) {
    const value = request[field];
    if (value === undefined) continue;
    if (field === "company_type" && !VIES_COMPANY_TYPE.test(value.trim())) continue;
    trader[TRADER_KEYS[field]] = value;
  }
  return trader;
}

/**
 * The member states that compare trader details themselves (VIES approximate matching): only
 * Spain, per VIES's own `/countries` list (`approxMatching`, read 2026-08-05). A match request
 * for one of them goes to the authority even when the cache holds the number: its codes only
 * come with a fresh answer, and Spain discloses no name or address to compare here.
 */
const MATCHING_STATES: ReadonlySet<string> = new Set(["ES"]);

/**
 * The details to ask the member state to compare: only where it compares them (Spain); null
 * where the comparison is made here, so that the authority's call is the same whatever is sent.
 */
export function traderFor(match: MatchRequest | null, prefix: string): TraderDetails | null {
  if (match === null || !MATCHING_STATES.has(prefix)) return null;
  const trader = traderDetailsOf(match);
  return Object.keys(trader).length > 0 ? trader : null;
}

/**
 * How alike a given field is to the registered record, from 0 to 1 (postcodes and legal forms
 * are the same or not: 1 or 0); null when the register disclosed nothing to compare it with.
 */
function similarityOf(
  field: MatchField,
  given: string,
  registered: Registered,
  address: () => AddressParts | null,
  country: string,
  forms: CountryLegalForms,
): number | null {
  switch (field) {
    case "name":
      return registered.name === null ? null : nameSimilarity(given, registered.name, forms);
    case "company_type": {
      if (registered.name === null) return null;
      const asked = forms.recognise(given);
      const held = forms.strip(nameWords(registered.name)).forms;
      if (asked === null || held.length === 0) return null;
      return held.some((form) => sameLegalForm(asked, form)) ? 1 : 0;
    }
    case "street": {
      const street = address()?.street;
      return street ? streetSimilarity(given, street) : null;
    }
    case "postcode": {
      const postcode = address()?.postcode;
      return postcode ? (samePostcode(given, postcode, country) ? 1 : 0) : null;
    }
    case "city": {
      const city = address()?.city;
      return city ? citySimilarity(given, city, country) : null;
    }
  }
}

const addressOf = (registered: Registered | null, country: string) => {
  let parts: AddressParts | null | undefined;
  return () => {
    if (parts === undefined) parts = registered?.address ? splitAddress(registered.address, country) : null;
    return parts;
  };
};

/** One field's similarity to the record, as `matchTrader` judges it (for tuning the threshold). */
export function fieldSimilarity(
  field: MatchField,
  given: string,
  registered: Registered,
  country: string,
  forms: CountryLegalForms,
): number | null {
  return similarityOf(field, given, registered, addressOf(registered, country), country, forms);
}

/**
 * The overall result: `match` when every compared field matched, `mismatch` when the name did
 * not (without a compared name, when no compared field matched), `not_processed` when nothing
 * was compared, `partial` otherwise.
 */
function overallOf(fields: Partial<Record<MatchField, FieldMatch>>): MatchResult["overall"] {
  const compared = Object.entries(fields).filter(([, field]) => field.result !== "not_processed");
  if (compared.length === 0) return "not_processed";
  if (compared.every(([, field]) => field.result === "match")) return "match";
  const name = fields.name;
  if (name && name.result !== "not_processed") return name.result === "mismatch" ? "mismatch" : "partial";
  return compared.every(([, field]) => field.result === "mismatch") ? "mismatch" : "partial";
}

/**
 * Matches the details a caller sent against an authority's record: a field the member state
 * answered for (match or mismatch) is its verdict; any other is compared here with the disclosed
 * name and address, split by the conventions of `country` (ISO 3166-1); a field with nothing to
 * compare it with is `not_processed`. `registered` is null when there is no record at all (the
 * number could not be checked, or is not registered).
 */
export function matchTrader(
  request: MatchRequest,
  registered: Registered | null,
  authority: AuthorityCodes,
  country: string,
  forms: CountryLegalForms,
): MatchResult {
  const address = addressOf(registered, country);
  const fields: Partial<Record<MatchField, FieldMatch>> = {};
  for (const field of MATCH_FIELDS) {
    const given = request[field];
    if (given === undefined) continue;
    const code = authority?.[TRADER_KEYS[field]];
    if (code === "match" || code === "mismatch") {
      fields[field] = { result: code, by: "authority" };
      continue;
    }
    const similarity =
      registered === null ? null : similarityOf(field, given, registered, address, country, forms);
    fields[field] =
      similarity === null
        ? { result: "not_processed", by: null }
        : { result: similarity >= MATCH_THRESHOLD ? "match" : "mismatch", by: "local" };
  }
  return { overall: overallOf(fields), ...fields };
}
