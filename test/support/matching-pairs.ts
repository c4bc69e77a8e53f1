import { readFileSync } from "node:fs";
import { LegalForms, readLegalFormData } from "../../src/matching/legal-forms.ts";
import { fieldSimilarity, type Registered } from "../../src/matching/match.ts";
import { MATCH_FIELDS, type MatchField } from "../../src/matching/schema.ts";

/** One labelled pair of test/fixtures/matching-pairs.json, with the record it is compared with. */
export type LabelledPair = {
  record: string;
  country: string;
  registered: Registered;
  field: MatchField;
  value: string;
  same: boolean;
  kind: string;
};

type PairRecord = {
  id: string;
  country: string;
  name: string | null;
  address: string | null;
  pairs: [MatchField, string, boolean, string][];
};

const FIXTURE = new URL("../fixtures/matching-pairs.json", import.meta.url);

/** Every pair of the labelled set, in file order. */
export function readLabelledPairs(): LabelledPair[] {
  const { records } = JSON.parse(readFileSync(FIXTURE, "utf8")) as { records: PairRecord[] };
  return records.flatMap((record) =>
    record.pairs.map(([field, value, same, kind]) => {
      if (!MATCH_FIELDS.includes(field)) throw new Error(`${record.id}: unknown field ${field}`);
      return {
        record: record.id,
        country: record.country,
        registered: { name: record.name, address: record.address },
        field,
        value,
        same,
        kind,
      };
    }),
  );
}

/** A pair scored: its similarity to the record (null when nothing could be compared). */
export type ScoredPair = LabelledPair & { similarity: number | null };

export function scorePairs(pairs: LabelledPair[], forms = new LegalForms(readLegalFormData())): ScoredPair[] {
  return pairs.map((pair) => ({
    ...pair,
    similarity: fieldSimilarity(
      pair.field,
      pair.value,
      pair.registered,
      pair.country,
      forms.of(pair.country),
    ),
  }));
}

/** Counts of a set of scored pairs at one threshold: `match` is the positive prediction. */
export type Confusion = {
  pairs: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  trueNegatives: number;
  /** Pairs with nothing to compare (neither a match nor a mismatch was said). */
  notProcessed: number;
};

export function confusion(scored: ScoredPair[], threshold: number): Confusion {
  const counts: Confusion = {
    pairs: scored.length,
    truePositives: 0,
    falsePositives: 0,
    falseNegatives: 0,
    trueNegatives: 0,
    notProcessed: 0,
  };
  for (const pair of scored) {
    if (pair.similarity === null) counts.notProcessed++;
    else if (pair.similarity >= threshold) {
      if (pair.same) counts.truePositives++;
      else counts.falsePositives++;
    } else if (pair.same) counts.falseNegatives++;
    else counts.trueNegatives++;
  }
  return counts;
}

/** Of the pairs said to match, the share that are the same; 1 when none was said to match. */
export function precision(counts: Confusion): number {
  const said = counts.truePositives + counts.falsePositives;
  return said === 0 ? 1 : counts.truePositives / said;
}

/** Of the pairs that are the same and could be compared, the share said to match. */
export function recall(counts: Confusion): number {
  const same = counts.truePositives + counts.falseNegatives;
  return same === 0 ? 1 : counts.truePositives / same;
}

/**
 * The pairs held out from tuning: every third record (by position in the file), so that all
 * the variants of one company are on the same side.
 */
export function isHeldOut(record: string, recordOrder: string[]): boolean {
  return recordOrder.indexOf(record) % 3 === 2;
}
