/**
 * Token-based similarity: two texts are alike when the words of each are found, exactly or
 * nearly, among the words of the other. Words are compared by edit distance, numbers by value.
 */

/** Levenshtein distance (insertions, deletions and substitutions of one character each). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(substitution, (previous[j] as number) + 1, (current[j - 1] as number) + 1);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length] as number;
}

const DIGITS = /^\d+$/;

/** Words shorter than this must be equal to count as alike: one letter changes them wholly. */
const SHORT_WORD = 4;

/** The least likeness two different words need to count as a spelling of one another. */
export const WORD_LIKENESS = 0.8;

/**
 * How alike two folded words are, from 0 to 1: 1 when equal (numbers by value: `00068` is
 * `68`); WORD_LIKENESS for an initial and a word it begins; for words of four letters or more,
 * 1 − edit distance / longer length when that reaches WORD_LIKENESS (`mueller`/`muller`,
 * `luxemburg`/`luxembourg`); 0 otherwise.
 */
export function wordLikeness(a: string, b: string): number {
  if (a === b) return 1;
  if (DIGITS.test(a) || DIGITS.test(b)) {
    return DIGITS.test(a) && DIGITS.test(b) && BigInt(a) === BigInt(b) ? 1 : 0;
  }
  // An initial stands for a word (`A. Reyerslaan`, `J Smith`).
  if ((a.length === 1) !== (b.length === 1) && a[0] === b[0]) return WORD_LIKENESS;
  const longer = Math.max(a.length, b.length);
  if (Math.min(a.length, b.length) < SHORT_WORD) return 0;
  const likeness = 1 - editDistance(a, b) / longer;
  return likeness >= WORD_LIKENESS ? likeness : 0;
}

/** A word and how much it says about the identity of what it is part of. */
export type Weighted = { word: string; weight: number };

/** The best likeness of `word` to any of `others`. */
function bestLikeness(word: string, others: readonly Weighted[]): number {
  let best = 0;
  for (const other of others) {
    const likeness = wordLikeness(word, other.word);
    if (likeness > best) best = likeness;
    if (best === 1) break;
  }
  return best;
}

/**
 * How much of `from` is found in `to`: the weights of `from`'s words, each times its best
 * likeness in `to`, over their total weight. 1 when `from` carries no weight at all.
 */
export function coverage(from: readonly Weighted[], to: readonly Weighted[]): number {
  let total = 0;
  let found = 0;
  for (const { word, weight } of from) {
    total += weight;
    if (weight > 0) found += weight * bestLikeness(word, to);
  }
  return total === 0 ? 1 : found / total;
}

/**
 * `words` with each word that is the initials of a run of consecutive words of `other` replaced
 * by that run: `PKO` for `POWSZECHNA KASA OSZCZĘDNOŚCI`, `AB` for `ANHEUSER-BUSCH`, `JF` for
 * `JOHN F.`. Words `other` has as they are, and words `skip` passes over (fillers), are left.
 */
export function spellOutInitials(
  list: readonly string[],
  other: readonly string[],
  skip: (word: string) => boolean,
): string[] {
  const candidates = other.filter((word) => !skip(word));
  return list.flatMap((word) => {
    if (word.length < 2 || word.length > 6 || !/^[a-z]+$/.test(word) || other.includes(word)) return [word];
    for (let start = 0; start + word.length <= candidates.length; start++) {
      const run = candidates.slice(start, start + word.length);
      if (run.every((runWord, index) => runWord[0] === word[index])) return run;
    }
    return [word];
  });
}
