/**
 * Text folding for comparison: what two spellings of one name or address have in common once
 * script, accents, case, punctuation and spacing are set aside.
 */

// Greek and Cyrillic to Latin, close to ELOT 743 and the Bulgarian official system (the states
// writing in these scripts are GR, CY and BG): callers write those names in Latin letters.
// Accents are gone by the time these apply (NFKD, then marks stripped).
// biome-ignore format: a table
const GREEK: Record<string, string> = {
  α: "a", β: "v", γ: "g", δ: "d", ε: "e", ζ: "z", η: "i", θ: "th", ι: "i", κ: "k", λ: "l", μ: "m",
  ν: "n", ξ: "x", ο: "o", π: "p", ρ: "r", σ: "s", ς: "s", τ: "t", υ: "y", φ: "f", χ: "ch", ψ: "ps",
  ω: "o",
};
// biome-ignore format: a table
const CYRILLIC: Record<string, string> = {
  а: "a", б: "b", в: "v", г: "g", д: "d", е: "e", ж: "zh", з: "z", и: "i", к: "k", л: "l", м: "m",
  н: "n", о: "o", п: "p", р: "r", с: "s", т: "t", у: "u", ф: "f", х: "h", ц: "ts", ч: "ch", ш: "sh",
  щ: "sht", ъ: "a", ь: "y", ю: "yu", я: "ya", ы: "y", э: "e", є: "ye", і: "i", ђ: "dj", ј: "j",
  љ: "lj", њ: "nj", ћ: "c", џ: "dz",
};
// Latin letters that NFKD leaves whole.
// biome-ignore format: a table
const LATIN: Record<string, string> = {
  ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", ð: "d", þ: "th", ħ: "h", ı: "i", ĸ: "k",
  ŧ: "t", ŋ: "n", ſ: "s",
};
const LETTERS: Record<string, string> = { ...GREEK, ...CYRILLIC, ...LATIN };
const MAPPED = new RegExp(`[${Object.keys(LETTERS).join("")}]`, "g");

/**
 * Lower case, compatibility decomposition (NFKD: ligatures, full-width and styled letters),
 * accents dropped, Greek and Cyrillic transliterated, `ß` and the other undecomposable letters
 * spelled out. Punctuation and spacing are kept; `words` deals with them.
 */
export function fold(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/ου/g, "ou")
    .replace(MAPPED, (letter) => LETTERS[letter] ?? letter);
}

const SHORT_LETTERS = /^[a-z]{1,2}$/;

/**
 * The words of a text, folded: runs of letters and digits. Anything else separates words,
 * except that letters written with dots between them stay one word (`S.A.` is `sa`, `G.m.b.H.`
 * is `gmbh`, `Ges.m.b.H.` is `ges mbh`), as abbreviations are written either way.
 */
export function words(text: string): string[] {
  const folded = fold(text);
  const out: string[] = [];
  let previous = "";
  let end = -1;
  for (const match of folded.matchAll(/[a-z0-9]+/g)) {
    const piece = match[0];
    const dotted = end >= 0 && folded.slice(end, match.index) === ".";
    if (dotted && SHORT_LETTERS.test(previous) && SHORT_LETTERS.test(piece) && out.length > 0) {
      out[out.length - 1] += piece;
    } else {
      out.push(piece);
    }
    previous = piece;
    end = match.index + piece.length;
  }
  return out;
}

// Abbreviations of words that recur in company names and legal forms, to one spelling each.
// biome-ignore format: a table
const NAME_ABBREVIATIONS: Record<string, string> = {
  ltd: "limited", co: "company", corp: "corporation", intl: "international", inc: "incorporated",
};

/** The words of a company name or legal form, with `Ltd`, `Co`, `Corp`… spelled out. */
export function nameWords(text: string): string[] {
  return words(text).map((word) => NAME_ABBREVIATIONS[word] ?? word);
}
