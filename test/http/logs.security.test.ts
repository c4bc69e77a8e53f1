import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { testDatabase } from "../support/database.ts";
import { type Harness, startHarness } from "../support/harness.ts";

/**
 * Logs never carry customer data, even when the database refuses a statement full of it.
 * Each test makes one statement fail for real — a CHECK constraint, added for the test and
 * dropped after it, that only the test's own values break — and reads every line logged.
 */

const VAT = "NL854265259B01";
const NAME = "GITHUB B.V.";
const IBAN = "DE89370400440532013000";

let harness: Harness;
let key: string;

beforeAll(async () => {
  harness = await startHarness();
  key = (await harness.createKey("pro")).secret;
});
afterAll(() => harness.close());

/** Runs `work` while `table` refuses rows for which `check` is false (existing rows are not checked). */
async function whileRefusing(table: string, check: string, work: () => Promise<void>): Promise<void> {
  const database = await testDatabase();
  const name = `log_probe_${crypto.randomUUID().replaceAll("-", "")}`;
  await database.rows(sql.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${name} CHECK (${check}) NOT VALID`));
  try {
    await work();
  } finally {
    await database.rows(sql.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${name}`));
  }
}

/** Every line logged since `from`, as text, and the lines of `event`. */
function logged(from: number, event: string): { text: string; lines: Record<string, unknown>[] } {
  const lines = harness.logs.slice(from);
  return { text: JSON.stringify(lines), lines: lines.filter((line) => line.event === event) };
}

describe("a failed statement is logged without its data", () => {
  test("a batch whose insert fails: 500, and the log has the code and the table, no item", async () => {
    const reference = `customer-${crypto.randomUUID()}`;
    const from = harness.logs.length;
    await whileRefusing("batch_items", `reference IS DISTINCT FROM '${reference}'`, async () => {
      const response = await harness.request("POST", "/batches", {
        key,
        body: { items: [{ vat: VAT, iban: IBAN, reference }] },
      });
      expect(response.status).toBe(500);
    });
    const { text, lines } = logged(from, "unhandled_error");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ code: "23514", table: "batch_items" });
    for (const secret of [reference, IBAN, VAT, VAT.slice(2)]) expect(text).not.toContain(secret);
  });

  test("a validation record that cannot be written: the answer is given, the log has no number or name", async () => {
    const from = harness.logs.length;
    await whileRefusing("validation_records", `vat_number IS DISTINCT FROM '${VAT}'`, async () => {
      const response = await harness.validate<{ vat: { valid: boolean; name: string } }>(key, { vat: VAT });
      expect(response.status).toBe(200);
      expect(response.body.vat).toMatchObject({ valid: true, name: NAME });
      await harness.services.records.idle();
    });
    const { text, lines } = logged(from, "validation_record_failed");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ code: "23514", table: "validation_records" });
    for (const secret of [VAT, VAT.slice(2), NAME, "VIJZELSTRAAT"]) expect(text).not.toContain(secret);
  });
});
