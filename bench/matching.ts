/**
 * Local name and address matching on the labelled pairs of test/fixtures/matching-pairs.json:
 * precision and recall per field at the threshold in use, the same for the thresholds around it
 * (names, streets and cities; postcodes and legal forms are equal or not), the pairs it gets
 * wrong, and the time one comparison takes.
 *
 *   bun bench/matching.ts
 *
 * Records are split in two: two thirds for choosing the threshold, one third held out (every
 * third record, so that all the variants of one company fall on one side).
 */
import { LegalForms, readLegalFormData } from "../src/matching/legal-forms.ts";
import { MATCH_THRESHOLD, matchTrader } from "../src/matching/match.ts";
import { MATCH_FIELDS } from "../src/matching/schema.ts";
import {
  type Confusion,
  confusion,
  isHeldOut,
  precision,
  readLabelledPairs,
  recall,
  type ScoredPair,
  scorePairs,
} from "../test/support/matching-pairs.ts";
import { table } from "./support.ts";

const SWEEP = [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
const SCORED_FIELDS = new Set(["name", "street", "city"]);

const forms = new LegalForms(readLegalFormData());
const pairs = readLabelledPairs();
const scored = scorePairs(pairs, forms);
const order = [...new Set(pairs.map((pair) => pair.record))];
const tuning = scored.filter((pair) => !isHeldOut(pair.record, order));
const heldOut = scored.filter((pair) => isHeldOut(pair.record, order));

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

function row(label: string, set: ScoredPair[], threshold: number): (string | number)[] {
  const counts: Confusion = confusion(set, threshold);
  const same = set.filter((pair) => pair.same).length;
  return [
    label,
    counts.pairs,
    same,
    counts.pairs - same,
    counts.truePositives,
    counts.falsePositives,
    counts.falseNegatives,
    counts.notProcessed,
    percent(precision(counts)),
    percent(recall(counts)),
  ];
}

const HEADERS = [
  "field",
  "pairs",
  "same",
  "different",
  "match, same",
  "match, different",
  "mismatch, same",
  "not processed",
  "precision",
  "recall",
];

console.log(
  `Local matching, labelled pairs: ${pairs.length} pairs of ${order.length} records; threshold ${MATCH_THRESHOLD}\n`,
);
for (const [title, set] of [
  ["all pairs", scored],
  ["tuning two thirds", tuning],
  ["held-out third", heldOut],
] as const) {
  console.log(`${title}:\n`);
  const rows = MATCH_FIELDS.map((field) =>
    row(
      field,
      set.filter((pair) => pair.field === field),
      MATCH_THRESHOLD,
    ),
  );
  rows.push(row("all fields", set, MATCH_THRESHOLD));
  console.log(`${table(HEADERS, rows)}\n`);
}

console.log("Threshold sweep (tuning two thirds | held-out third), precision / recall:\n");
console.log(
  `${table(
    ["threshold", ...[...SCORED_FIELDS].flatMap((field) => [`${field} tuning`, `${field} held out`])],
    SWEEP.map((threshold) => [
      threshold === MATCH_THRESHOLD ? `**${threshold}**` : threshold,
      ...[...SCORED_FIELDS].flatMap((field) =>
        [tuning, heldOut].map((set) => {
          const counts = confusion(
            set.filter((pair) => pair.field === field),
            threshold,
          );
          return `${percent(precision(counts))} / ${percent(recall(counts))}`;
        }),
      ),
    ]),
  )}\n`,
);

const wrong = scored.filter(
  (pair) => pair.similarity !== null && pair.similarity >= MATCH_THRESHOLD !== pair.same,
);
console.log(`Pairs judged wrongly at ${MATCH_THRESHOLD} (${wrong.length}):\n`);
console.log(
  `${table(
    ["record", "field", "value", "labelled", "similarity", "kind"],
    wrong.map((pair) => [
      pair.record,
      pair.field,
      pair.value,
      pair.same ? "same" : "different",
      (pair.similarity as number).toFixed(2),
      pair.kind,
    ]),
  )}\n`,
);

// Speed: every pair matched as a request with that one field, repeated; the legal forms of each
// country are indexed before timing (once per process, on first use).
for (const pair of pairs) forms.of(pair.country);
const rounds = 200;
const started = performance.now();
for (let round = 0; round < rounds; round++) {
  for (const pair of pairs) {
    matchTrader({ [pair.field]: pair.value }, pair.registered, null, pair.country, forms.of(pair.country));
  }
}
const microseconds = ((performance.now() - started) * 1000) / (rounds * pairs.length);
console.log(
  `Time per single-field match: ${microseconds.toFixed(1)} µs (${rounds} × ${pairs.length} matches)`,
);
const indexStarted = performance.now();
const fresh = new LegalForms(readLegalFormData());
for (const country of new Set(pairs.map((pair) => pair.country))) fresh.of(country);
console.log(
  `Reading the legal-form data and indexing the ${new Set(pairs.map((pair) => pair.country)).size} countries of the set: ${(performance.now() - indexStarted).toFixed(1)} ms`,
);
