import { type CountryLegalForms, type LegalForm, sameLegalForm } from "./legal-forms.ts";
import { coverage, spellOutInitials, type Weighted } from "./similarity.ts";
import { nameWords } from "./words.ts";

/**
 * A name whose legal form differs from the registered one (`Siemens AG` for `SIEMENS GMBH`) is
 * a different company more often than a careless one: its similarity is multiplied by this.
 */
export const LEGAL_FORM_CONFLICT = 0.75;

/** How much a generic word or a place weighs beside a word that names the company. */
const GENERIC_WEIGHT = 0.3;

/** A register's name at least this long may have been cut short (VIES truncates some states' names). */
const TRUNCATED_AT_LEAST = 20;

// Words that say nothing about which company is meant: articles, conjunctions, prepositions.
// biome-ignore format: a list
const FILLERS = new Set([
  "and", "the", "of", "for", "und", "der", "die", "das", "fur", "fuer", "von", "zu", "zum", "zur", "et",
  "le", "la", "les", "de", "du", "des", "pour", "y", "el", "los", "las", "del", "di", "della", "dei",
  "delle", "e", "en", "het", "van", "og", "och", "i", "a", "do", "da", "dos", "za", "na", "pro", "es",
  "tis", "tou", "ton", "kai",
]);

// Words that describe a company's standing rather than name it; a difference in them alone says
// little. (A business line, `Services`, `Payments`, does name one: it stays a word like any.)
// `sc` is Romanian `S.C.` (societate comercială), written before many names.
// biome-ignore format: a list
const GENERIC = new Set([
  "group", "groupe", "gruppe", "groep", "grupo", "gruppo", "holding", "holdings", "international",
  "global", "company", "compagnie", "corporation", "koninklijke", "royal", "sc",
]);

// Places in names (`GOOGLE IRELAND LIMITED`), each country under its English name: they weigh
// little, unless the other name names another place (`Google Germany`): then it is another
// company of the group, and both weigh in full.
// biome-ignore format: a table
const PLACES: Record<string, string> = {
  europe: "europe", european: "europe", europa: "europe", eu: "europe", emea: "emea",
  benelux: "benelux", nordic: "nordic", ireland: "ireland", irland: "ireland", germany: "germany",
  deutschland: "germany", france: "france", italy: "italy", italia: "italy", spain: "spain",
  espana: "spain", netherlands: "netherlands", nederland: "netherlands", belgium: "belgium",
  belgie: "belgium", belgique: "belgium", austria: "austria", osterreich: "austria",
  poland: "poland", polska: "poland", uk: "uk", switzerland: "switzerland", schweiz: "switzerland",
  suisse: "switzerland", sweden: "sweden", sverige: "sweden", denmark: "denmark", danmark: "denmark",
  finland: "finland", suomi: "finland", norway: "norway", norge: "norway", portugal: "portugal",
  greece: "greece", hellas: "greece", ellada: "greece", czech: "czech", cesko: "czech",
  slovakia: "slovakia", slovensko: "slovakia", hungary: "hungary", magyarorszag: "hungary",
  romania: "romania", bulgaria: "bulgaria", balgariya: "bulgaria", croatia: "croatia",
  hrvatska: "croatia", slovenia: "slovenia", slovenija: "slovenia", lithuania: "lithuania",
  lietuva: "lithuania", latvia: "latvia", latvija: "latvia", estonia: "estonia", eesti: "estonia",
  luxembourg: "luxembourg", cyprus: "cyprus", malta: "malta",
};

const isFiller = (word: string) => FILLERS.has(word);

/** The words of a name to compare: places under one spelling each. */
const comparable = (list: string[]) => list.map((word) => PLACES[word] ?? word);

const placesNotIn = (list: string[], other: string[]) =>
  list.some((word) => word in PLACES && !other.includes(word));

function weighted(list: string[], placeConflict: boolean): Weighted[] {
  return list.map((word) => {
    if (isFiller(word)) return { word, weight: 0 };
    if (word in PLACES) return { word, weight: placeConflict ? 1 : GENERIC_WEIGHT };
    return { word, weight: GENERIC.has(word) ? GENERIC_WEIGHT : 1 };
  });
}

/** `VRT` for `Vlaamse Radio- en Televisieomroeporganisatie`: a whole name as the initials of the other. */
function isAcronymOf(short: string[], long: string[]): boolean {
  if (short.length !== 1 || long.length < 2) return false;
  const [acronym] = short as [string];
  if (acronym.length < 2) return false;
  const initials = (list: string[]) => list.map((word) => word[0]).join("");
  return (
    acronym === initials(long) ||
    acronym === initials(long.filter((word) => word.length > 2 && !isFiller(word)))
  );
}

/** Whether the register cut its name short: the given name continues it, and its last word. */
function truncatedBy(given: string[], registered: string[]): boolean {
  if (registered.join(" ").length < TRUNCATED_AT_LEAST || given.length < registered.length) return false;
  const last = registered.length - 1;
  const cut = registered[last] as string;
  const whole = given[last] as string;
  return (
    registered.slice(0, last).every((word, index) => word === given[index]) &&
    whole.length > cut.length &&
    whole.startsWith(cut)
  );
}

/** Whether no legal form of the one name can be one of the other's, both having some. */
function conflicting(a: LegalForm[], b: LegalForm[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  return !a.some((form) => b.some((other) => sameLegalForm(form, other)));
}

/**
 * How alike a given company name is to the registered one, from 0 to 1. Legal forms are taken
 * off both and compared on their own (a conflict lowers the result). What remains is alike when
 * it has the same letters (`GIT HUB`, `GitHub`), when one is an acronym of the other, or as far
 * as the words of each are found in the other (initials standing for words they begin), weighed
 * by what they say: fillers nothing, generic words and places little. A name the register cut
 * short mid-word (`… DES FINANCE`) is alike to the names it begins.
 */
export function nameSimilarity(given: string, registered: string, forms: CountryLegalForms): number {
  const givenWords = nameWords(given);
  const registeredWords = nameWords(registered);
  if (truncatedBy(givenWords, registeredWords)) return 1;
  const a = forms.strip(givenWords);
  const b = forms.strip(registeredWords);
  const wordsA = comparable(a.words);
  const wordsB = comparable(b.words);
  let similarity: number;
  if (wordsA.join("") === wordsB.join("")) similarity = 1;
  else if (isAcronymOf(wordsA, wordsB) || isAcronymOf(wordsB, wordsA)) similarity = 1;
  else {
    const spelledA = spellOutInitials(wordsA, wordsB, isFiller);
    const spelledB = spellOutInitials(wordsB, wordsA, isFiller);
    const placeConflict = placesNotIn(spelledA, spelledB) && placesNotIn(spelledB, spelledA);
    const weightedA = weighted(spelledA, placeConflict);
    const weightedB = weighted(spelledB, placeConflict);
    similarity = Math.min(coverage(weightedA, weightedB), coverage(weightedB, weightedA));
  }
  return conflicting(a.forms, b.forms) ? similarity * LEGAL_FORM_CONFLICT : similarity;
}
