import { describe, expect, test } from "bun:test";
import { MATCH_THRESHOLD } from "../../src/matching/match.ts";
import { confusion, precision, readLabelledPairs, recall, scorePairs } from "../support/matching-pairs.ts";

/**
 * The labelled pairs of test/fixtures/matching-pairs.json at the threshold in use: floors just
 * under what bench/matching.ts reports (bench/README.md), so that a change that makes matching
 * worse fails here, and one that makes it better raises them.
 */
const FLOORS = {
  name: { precision: 0.97, recall: 0.85 },
  street: { precision: 0.95, recall: 0.95 },
  postcode: { precision: 1, recall: 1 },
  city: { precision: 1, recall: 0.8 },
  company_type: { precision: 1, recall: 1 },
} as const;

describe("local matching on the labelled pairs", () => {
  const scored = scorePairs(readLabelledPairs());

  test("a few hundred pairs, both labels for every field", () => {
    expect(scored.length).toBeGreaterThanOrEqual(300);
    for (const field of Object.keys(FLOORS)) {
      const pairs = scored.filter((pair) => pair.field === field);
      expect({ field, same: pairs.some((p) => p.same), different: pairs.some((p) => !p.same) }).toEqual({
        field,
        same: true,
        different: true,
      });
    }
  });

  for (const [field, floor] of Object.entries(FLOORS)) {
    test(`${field}: precision and recall at ${MATCH_THRESHOLD}`, () => {
      const counts = confusion(
        scored.filter((pair) => pair.field === field),
        MATCH_THRESHOLD,
      );
      expect(precision(counts)).toBeGreaterThanOrEqual(floor.precision);
      expect(recall(counts)).toBeGreaterThanOrEqual(floor.recall);
    });
  }
});
