import { cityName, postcodeKey } from "./address.ts";
import { coverage, spellOutInitials, type Weighted } from "./similarity.ts";
import { words } from "./words.ts";

// Street types and their abbreviations, to one spelling each (as folded).
// biome-ignore format: a table
const STREET_TYPES: Record<string, string> = {
  strasse: "str", street: "st", saint: "st", straat: "str", strada: "str",
  avenue: "av", ave: "av", avda: "av", avenida: "av", aven: "av", avinguda: "av",
  boulevard: "bd", bld: "bd", blvd: "bd", bvd: "bd", bul: "bd", bulevar: "bd", bulevardul: "bd",
  road: "rd", place: "pl", plac: "pl", platz: "pl", plaza: "pl", piazza: "pl", praca: "pl", pza: "pl",
  square: "sq", largo: "lg", ulica: "ul", calea: "cal", lane: "ln", drive: "dr", chaussee: "ch",
  steenweg: "stwg",
};
const STREET_TYPE_SPELLINGS = new Set(Object.values(STREET_TYPES));

/** Words that only introduce a house number. */
const STREET_FILLERS = new Set(["nr", "no", "numar", "numero", "num", "n"]);

/**
 * A street type (`ul.`, `Avenue`) weighs little when the other side has none (one side often
 * leaves it out), in full when the other side has another (`Barrow Road`, `BARROW STREET`).
 */
const STREET_TYPE_WEIGHT = 0.2;

/** `Hauptstraße` and `Hauptstr.` alike: a word ending in a street type keeps its abbreviation. */
function streetWord(word: string): string {
  const type = STREET_TYPES[word];
  if (type) return type;
  for (const ending of ["strasse", "straat"]) {
    if (word.length > ending.length && word.endsWith(ending)) return `${word.slice(0, -ending.length)}str`;
  }
  return word;
}

const isStreetType = (word: string) => STREET_TYPE_SPELLINGS.has(word);

function streetWeights(list: string[], otherTypes: string[]): Weighted[] {
  return list.map((word) => {
    if (STREET_FILLERS.has(word)) return { word, weight: 0 };
    if (!isStreetType(word)) return { word, weight: 1 };
    const otherType = otherTypes.length > 0 && !otherTypes.includes(word);
    return { word, weight: otherType ? 1 : STREET_TYPE_WEIGHT };
  });
}

/**
 * How much of a given street (with its house number) is found in the registered one. One way
 * only: registers add floors, buildings and districts (`3RD FLOOR, GORDON HOUSE, BARROW STREET`)
 * that a caller leaves out. A house number counts like a word, so a different number lowers it.
 */
export function streetSimilarity(given: string, registered: string): number {
  const registeredWords = words(registered).map(streetWord);
  const givenWords = spellOutInitials(words(given).map(streetWord), registeredWords, () => false);
  const registeredTypes = registeredWords.filter(isStreetType);
  return coverage(streetWeights(givenWords, registeredTypes), streetWeights(registeredWords, []));
}

/** Digits in a city name are districts (`DUBLIN 4`, `PRAHA 4`): they are not compared. */
function cityWeights(text: string, country: string): Weighted[] {
  return words(cityName(text, country)).map((word) => ({ word, weight: /\d/.test(word) ? 0 : 1 }));
}

/** How alike two city names are: the words of each found in the other's. */
export function citySimilarity(given: string, registered: string, country: string): number {
  const a = cityWeights(given, country);
  const b = cityWeights(registered, country);
  return Math.min(coverage(a, b), coverage(b, a));
}

/**
 * Postcodes are the same code or not: no likeness in between. Numeric ones compare by value,
 * since spreadsheets drop leading zeros (`00184` kept as `184`).
 */
export function samePostcode(given: string, registered: string, country: string): boolean {
  const a = postcodeKey(given, country);
  const b = postcodeKey(registered, country);
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return a.replace(/^0+/, "") === b.replace(/^0+/, "");
  return a === b;
}
