import { describe, expect, test } from "bun:test";
import { changesBetween, supersedes } from "../../src/monitors/changes.ts";
import { afterQuotaReset, nextRound, outageDelayMs } from "../../src/monitors/schedule.ts";
import type { VatResult } from "../../src/vat/schema.ts";
import { prng } from "../support/prng.ts";
import { freshVatResult } from "../support/vat-results.ts";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const T0 = Date.parse("2026-03-15T12:00:00Z");

describe("nextRound", () => {
  test("after the first answer: a point within the first interval, never now and never past it", () => {
    const random = prng(7);
    const offsets = Array.from(
      { length: 10_000 },
      () =>
        nextRound(
          { dueMs: T0, intervalDays: 30, firstAnswer: true },
          T0,
          () => random.int(1_000_000) / 1_000_000,
        ) - T0,
    );
    expect(Math.min(...offsets)).toBeGreaterThan(0);
    expect(Math.max(...offsets)).toBeLessThanOrEqual(30 * DAY);
    // Evenly: each of 30 days holds about a thirtieth (333 of 10,000).
    const days = Array.from({ length: 30 }, () => 0);
    for (const offset of offsets) {
      const day = Math.min(29, Math.floor(offset / DAY));
      days[day] = (days[day] ?? 0) + 1;
    }
    expect(Math.min(...days)).toBeGreaterThan(250);
    expect(Math.max(...days)).toBeLessThan(420);
    expect(nextRound({ dueMs: T0, intervalDays: 30, firstAnswer: true }, T0, () => 0)).toBe(T0 + 30 * DAY);
    expect(nextRound({ dueMs: T0, intervalDays: 30, firstAnswer: true }, T0, () => 0.999_999_999_9)).toBe(
      T0 + 1,
    );
  });

  test("later: one interval after the round that was due, however late its check ran", () => {
    const round = { dueMs: T0, intervalDays: 7, firstAnswer: false };
    expect(nextRound(round, T0)).toBe(T0 + 7 * DAY);
    expect(nextRound(round, T0 + 5 * HOUR)).toBe(T0 + 7 * DAY);
    expect(nextRound(round, T0 + 7 * DAY - 1)).toBe(T0 + 7 * DAY);
    // A round missed whole (the service was down) is skipped, not caught up.
    expect(nextRound(round, T0 + 7 * DAY)).toBe(T0 + 14 * DAY);
    expect(nextRound(round, T0 + 20 * DAY)).toBe(T0 + 21 * DAY);
  });

  test("a round still ahead (a check asked for before it) stays where it is", () => {
    expect(nextRound({ dueMs: T0 + 3 * DAY, intervalDays: 30, firstAnswer: false }, T0)).toBe(T0 + 3 * DAY);
  });
});

describe("outageDelayMs", () => {
  test("within the retry window, as a batch item: from 2.5–5 s, doubling to at most 5 minutes", () => {
    expect(outageDelayMs(1, T0, T0, 3600, () => 0)).toBe(2_500);
    expect(outageDelayMs(1, T0, T0, 3600, () => 1)).toBe(5_000);
    expect(outageDelayMs(3, T0, T0 + 60_000, 3600, () => 1)).toBe(20_000);
    expect(outageDelayMs(20, T0, T0 + 59 * 60_000, 3600, () => 1)).toBe(300_000);
  });

  test("after it, about hourly: between half an hour and an hour and a half", () => {
    expect(outageDelayMs(40, T0, T0 + HOUR, 3600, () => 0)).toBe(HOUR / 2);
    expect(outageDelayMs(40, T0, T0 + 10 * HOUR, 3600, () => 1)).toBe(1.5 * HOUR);
  });
});

test("afterQuotaReset: within the hour after the reset", () => {
  expect(afterQuotaReset(T0, () => 0)).toBe(T0);
  expect(afterQuotaReset(T0, () => 0.999_999)).toBeLessThan(T0 + HOUR);
});

const ANSWER = freshVatResult({ checked_at: "2026-03-15T12:00:00.000Z" });
const LAPSED: VatResult = { ...ANSWER, valid: false, name: null, address: null };
const matched = (overall: "match" | "mismatch", by: "local" | "authority" = "local"): VatResult => ({
  ...ANSWER,
  match: { overall, name: { result: overall, by } },
});

describe("changesBetween", () => {
  const cases: [string, VatResult, VatResult, string[]][] = [
    ["the same answer", ANSWER, { ...ANSWER, cached: true, checked_at: "2026-04-01T00:00:00.000Z" }, []],
    ["a lapse", ANSWER, LAPSED, ["vat.registration_changed"]],
    [
      "a lapse of a watched match: only the registration",
      matched("match"),
      { ...LAPSED, match: { overall: "not_processed", name: { result: "not_processed", by: null } } },
      ["vat.registration_changed"],
    ],
    ["registered again", LAPSED, ANSWER, ["vat.registration_changed"]],
    ["still not registered", LAPSED, { ...LAPSED, checked_at: "2026-04-01T00:00:00.000Z" }, []],
    [
      "a new address",
      ANSWER,
      { ...ANSWER, address: "HERENGRACHT 420\n1017BZ AMSTERDAM" },
      ["vat.details_changed"],
    ],
    ["a new name", ANSWER, { ...ANSWER, name: "GITHUB NETHERLANDS B.V." }, ["vat.details_changed"]],
    ["a match verdict that changed", matched("match"), matched("mismatch"), ["vat.match_changed"]],
    ["the same verdict by someone else", matched("match", "local"), matched("match", "authority"), []],
    [
      "a new name and the match with it",
      matched("match"),
      { ...matched("mismatch"), name: "SOMEONE ELSE B.V." },
      ["vat.details_changed", "vat.match_changed"],
    ],
  ];
  for (const [name, previous, current, expected] of cases) {
    test(name, () => expect(changesBetween(previous, current)).toEqual(expected as never));
  }
});

describe("supersedes", () => {
  test("a definitive answer no older than the one kept", () => {
    expect(supersedes(null, ANSWER)).toBe(true);
    expect(supersedes(ANSWER, { ...ANSWER, cached: true })).toBe(true);
    expect(supersedes(ANSWER, { ...LAPSED, checked_at: "2026-03-16T00:00:00.000Z" })).toBe(true);
    expect(supersedes(ANSWER, { ...LAPSED, checked_at: "2026-03-14T00:00:00.000Z" })).toBe(false);
    expect(supersedes(ANSWER, { ...ANSWER, valid: null })).toBe(false);
  });
});
