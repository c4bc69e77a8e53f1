import { fold, words } from "./words.ts";

/** A registered address taken apart; a part that cannot be told apart is null. */
export type AddressParts = { street: string | null; postcode: string | null; city: string | null };

type PostcodeRule = {
  /** The postcode's shape, without anchors. */
  shape: string;
  /** Country prefixes written before it (`L-1855`, `AT-1010`); dropped from the result. */
  prefixes?: string[];
};

// Postcode shapes of the countries whose registers disclose addresses (ISO codes: GR for EL,
// GB for XI). Prefixes as seen in VIES answers (`AT-1010 Wien`, `L-1855 LUXEMBOURG`).
// biome-ignore format: a table
const POSTCODES: Record<string, PostcodeRule> = {
  AT: { shape: "\\d{4}", prefixes: ["AT", "A"] }, BE: { shape: "\\d{4}", prefixes: ["BE", "B"] },
  BG: { shape: "\\d{4}", prefixes: ["BG"] }, CH: { shape: "\\d{4}", prefixes: ["CH"] },
  CY: { shape: "\\d{4}", prefixes: ["CY"] }, CZ: { shape: "\\d{3} ?\\d{2}", prefixes: ["CZ"] },
  DE: { shape: "\\d{5}", prefixes: ["DE", "D"] }, DK: { shape: "\\d{4}", prefixes: ["DK"] },
  EE: { shape: "\\d{5}", prefixes: ["EE"] }, ES: { shape: "\\d{5}" },
  FI: { shape: "\\d{5}", prefixes: ["FI"] }, FR: { shape: "\\d{5}", prefixes: ["F"] },
  GB: { shape: "[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}" }, GR: { shape: "\\d{3} ?\\d{2}", prefixes: ["GR"] },
  HR: { shape: "\\d{5}", prefixes: ["HR"] }, HU: { shape: "\\d{4}", prefixes: ["HU", "H"] },
  IE: { shape: "[A-Z]\\d[\\dW] ?[A-Z\\d]{4}" }, IT: { shape: "\\d{5}", prefixes: ["I"] },
  LT: { shape: "\\d{5}", prefixes: ["LT"] }, LU: { shape: "\\d{4}", prefixes: ["L"] },
  LV: { shape: "\\d{4}", prefixes: ["LV"] }, MT: { shape: "[A-Z]{3} ?\\d{4}" },
  NL: { shape: "\\d{4} ?[A-Z]{2}", prefixes: ["NL"] }, NO: { shape: "\\d{4}", prefixes: ["NO", "N"] },
  PL: { shape: "\\d{2}-\\d{3}" }, PT: { shape: "\\d{4}-\\d{3}" }, RO: { shape: "\\d{6}" },
  SE: { shape: "\\d{3} ?\\d{2}", prefixes: ["SE", "S"] }, SI: { shape: "\\d{4}", prefixes: ["SI"] },
  SK: { shape: "\\d{3} ?\\d{2}", prefixes: ["SK"] },
};

const POSTCODE_PATTERNS = new Map(
  Object.entries(POSTCODES).map(([country, rule]) => {
    const prefix = rule.prefixes ? `(?:(?:${rule.prefixes.join("|")})[- ]?)?` : "";
    return [country, new RegExp(`(?:^|[\\s,])${prefix}(${rule.shape})(?=$|[\\s,])`, "gi")];
  }),
);

/**
 * Words that mark a locality rather than name it, as folded: Romanian administrative units
 * (`MUNICIPIUL BUCUREŞTI`, `MUN. CLUJ-NAPOCA`, `ORŞ.`, `COM.`, `SAT`) and Bulgarian `гр.` (town)
 * and `с.` (village). Romanian addresses also lead with the county (`JUD.`) and the Bucharest
 * sector, which name no city.
 */
const CITY_MARKERS: Record<string, ReadonlySet<string>> = {
  RO: new Set(["municipiul", "mun", "oras", "ors", "comuna", "com", "sat"]),
  BG: new Set(["gr", "s"]),
};
const RO_REGION_MARKERS = new Set(["jud", "judetul", "sector"]);

/** Country names some states add as a last line (`Slovensko`), folded. */
const COUNTRY_LINES = new Set([
  "slovensko",
  "slovakia",
  "slovenska republika",
  "ceska republika",
  "czech republic",
  "magyarorszag",
  "hungary",
  "osterreich",
  "austria",
  "polska",
  "poland",
  "latvija",
  "lietuva",
  "eesti",
  "romania",
  "bulgaria",
  "hrvatska",
  "slovenija",
  "portugal",
  "italia",
  "france",
  "belgique",
  "belgie",
  "nederland",
  "luxembourg",
  "ireland",
  "danmark",
  "sverige",
  "suomi",
  "finland",
  "cyprus",
  "malta",
  "ellada",
]);

const tidy = (text: string) =>
  text
    .replace(/\s+/g, " ")
    .replace(/^[\s,;–-]+|[\s,;–-]+$/g, "")
    .trim();

/**
 * The segments of an address: its lines, or, for a one-line address, its comma-separated parts
 * (`3RD FLOOR, GORDON HOUSE, BARROW STREET, DUBLIN 4`). Country lines are dropped.
 */
function segmentsOf(address: string): string[] {
  const lines = address
    .split("\n")
    .map(tidy)
    .filter((line) => line !== "");
  const segments = lines.length === 1 ? (lines[0] as string).split(",").map(tidy) : lines;
  return segments.filter((segment) => segment !== "" && !COUNTRY_LINES.has(words(segment).join(" ")));
}

function firstWord(segment: string): string {
  return words(segment)[0] ?? "";
}

/** `MUN. CLUJ-NAPOCA` → `CLUJ-NAPOCA`; `гр. София` → `София`. */
function withoutMarker(segment: string): string {
  return tidy(segment.replace(/^\s*[\p{L}]+\.?\s*/u, ""));
}

/**
 * A city as written, tidied by its country's conventions: Italian province codes (`ROMA RM`)
 * and French `CEDEX` routing go, as do Romanian and Bulgarian locality markers (`MUN.`, `гр.`).
 */
export function cityName(text: string, country: string): string {
  let city = tidy(text);
  if (country === "IT") city = city.replace(/\s+[A-Z]{2}$/, "");
  if (country === "FR") city = city.replace(/\s+CEDEX(\s+\d+)?$/i, "");
  if (CITY_MARKERS[country]?.has(firstWord(city)) && words(city).length > 1) city = withoutMarker(city);
  return city;
}

const cityOf = (text: string, country: string) => cityName(text, country) || null;

type Found = { segment: number; start: number; end: number; postcode: string };

/** The last postcode of the country's shape in the address, scanning from its end. */
function findPostcode(segments: string[], country: string): Found | null {
  const pattern = POSTCODE_PATTERNS.get(country);
  if (!pattern) return null;
  for (let index = segments.length - 1; index >= 0; index--) {
    const segment = segments[index] as string;
    const matches = [...segment.matchAll(pattern)];
    const last = matches.at(-1);
    if (last?.[1] !== undefined) {
      const start = (last.index ?? 0) + (/^[\s,]/.test(last[0]) ? 1 : 0);
      return { segment: index, start, end: (last.index ?? 0) + last[0].length, postcode: last[1] };
    }
  }
  return null;
}

/** Romanian addresses lead with their units: `JUD. CLUJ, MUN. CLUJ-NAPOCA, STR. …, NR. 5`. */
function splitRomanian(segments: string[]): AddressParts | null {
  const cityMarkers = CITY_MARKERS.RO as ReadonlySet<string>;
  let index = 0;
  let city: string | null = null;
  while (index < segments.length) {
    const marker = firstWord(segments[index] as string);
    if (cityMarkers.has(marker)) city = withoutMarker(segments[index] as string);
    else if (!RO_REGION_MARKERS.has(marker)) break;
    index++;
  }
  if (index === 0) return null;
  const street = segments.slice(index).join(", ");
  return { street: street === "" ? null : street, postcode: null, city };
}

/**
 * Takes a registered address apart by the conventions of its country: the postcode by the
 * country's shape (the last one, scanning from the end), the city beside it on its line (or
 * the next line when it stands alone; for Ireland, whose Eircode follows the town, the line
 * before), the street from the lines before. Without a postcode, the leading units of a
 * Romanian address, or else the last line or comma-separated part (Ireland: `…, BARROW
 * STREET, DUBLIN 4`), give the city.
 */
export function splitAddress(address: string, country: string): AddressParts {
  const segments = segmentsOf(address);
  if (segments.length === 0) return { street: null, postcode: null, city: null };
  const found = findPostcode(segments, country);
  if (found === null) {
    const romanian = country === "RO" ? splitRomanian(segments) : null;
    if (romanian) return romanian;
    if (segments.length === 1) return { street: segments[0] as string, postcode: null, city: null };
    return {
      street: segments.slice(0, -1).join(", "),
      postcode: null,
      city: cityOf(segments.at(-1) as string, country),
    };
  }
  const line = segments[found.segment] as string;
  const before = tidy(line.slice(0, found.start));
  // The city follows the postcode (`1017HL AMSTERDAM`), or precedes it on its line when nothing
  // follows (`Bratislava 82109`); text before a postcode that a city follows is street.
  let city = cityOf(line.slice(found.end), country);
  const streetParts = segments.slice(0, found.segment);
  if (city === null) city = cityOf(before, country);
  else if (before !== "") streetParts.push(before);
  if (city === null) {
    const neighbour = country === "IE" ? found.segment - 1 : found.segment + 1;
    const text = segments[neighbour];
    if (text !== undefined) {
      city = cityOf(text, country);
      if (neighbour < found.segment) streetParts.splice(neighbour, 1);
    }
  }
  const street = streetParts.join(", ");
  return { street: street === "" ? null : street, postcode: found.postcode, city };
}

/**
 * A postcode reduced to what identifies it: letters and digits, upper case, without the
 * country prefix a caller may have written (`L-1855` and `1855`; `1017 HL` and `1017HL`).
 */
export function postcodeKey(postcode: string, country: string): string {
  const compact = fold(postcode)
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "");
  const prefixes = POSTCODES[country]?.prefixes ?? [];
  const prefix = [...prefixes]
    .sort((a, b) => b.length - a.length)
    .find((p) => compact.startsWith(p) && /^\d/.test(compact.slice(p.length)));
  return prefix ? compact.slice(prefix.length) : compact;
}
