import { beforeAll, describe, expect, test } from "bun:test";
import { type ValidationRecord, ValidationRecords } from "../../src/validation/records.ts";
import { proKey, testKeyStore } from "../support/database.ts";

/**
 * Records written together (one statement per flush, on the real database): what one key
 * sends never costs another key its record.
 */
let records: ValidationRecords;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  const store = await testKeyStore();
  records = new ValidationRecords(store.database);
  keyA = await proKey(store.keys, "records A");
  keyB = await proKey(store.keys, "records B");
});

const record = (
  keyId: string,
  requestId: string,
  name: string,
  checkedAt = "2026-03-15T12:00:00.000Z",
): ValidationRecord => ({
  request_id: requestId,
  key_id: keyId,
  vat_number: "NL004495445B01",
  valid: true,
  name,
  address: null,
  checked_at: checkedAt,
  consultation_number: null,
  source: "vies",
  match: null,
});

describe("validation records written in one flush", () => {
  test("one key's repeated request id keeps its latest check, and costs another key nothing", async () => {
    const id = `dup-${crypto.randomUUID()}`;
    const other = `b-${crypto.randomUUID()}`;
    // Submitted in one turn: one flush carries all three.
    const written = await Promise.allSettled([
      records.add(record(keyA, id, "FIRST")),
      records.add(record(keyB, other, "B'S CHECK")),
      records.add(record(keyA, id, "SECOND")),
    ]);
    expect(written.map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    expect((await records.find(keyB, other))?.name).toBe("B'S CHECK");
    expect((await records.find(keyA, id))?.name).toBe("SECOND");
  });

  test("a record the database refuses fails alone; the others of its flush are written", async () => {
    const ids = Array.from({ length: 3 }, () => `iso-${crypto.randomUUID()}`);
    const written = await Promise.allSettled([
      records.add(record(keyB, ids[0] as string, "BEFORE")),
      // No checked_at the service makes is like this one, which the database cannot read.
      records.add(record(keyA, ids[1] as string, "BROKEN", "2026-13-45T00:00:00Z")),
      records.add(record(keyB, ids[2] as string, "AFTER")),
    ]);
    expect(written.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((await records.find(keyB, ids[0] as string))?.name).toBe("BEFORE");
    expect(await records.find(keyA, ids[1] as string)).toBeNull();
    expect((await records.find(keyB, ids[2] as string))?.name).toBe("AFTER");
  });
});
