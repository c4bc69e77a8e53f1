import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { csvRecords } from "../../src/batches/csv.ts";
import type { Batch } from "../../src/batches/schema.ts";
import type { MatchResult } from "../../src/matching/schema.ts";
import type { ValidationRecord } from "../../src/validation/records.ts";
import { allItems, createBatch, sendTo, waitForBatch } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ background: true, env: { BATCH_POLL_MS: "20" } });
});
afterAll(() => harness.close());

async function keyed() {
  const key = await harness.createKey("pro", { rate: 1_000_000 });
  return { ...key, send: sendTo(harness, key.secret) };
}

const local = (result: "match" | "mismatch") => ({ result, by: "local" }) as const;
const authority = (result: "match" | "mismatch") => ({ result, by: "authority" }) as const;
/** A match result as the service gives it (typed, for comparing). */
const matched = (result: MatchResult) => result;

describe("batch items with `match`", () => {
  test("JSON: each item matched as /validate matches it; the fresh one's record keeps what was matched", async () => {
    const { send, secret } = await keyed();
    const created = await createBatch(send, {
      items: [
        { vat: "NL854265259B01", match: { name: "GitHub BV", city: "Rotterdam" } },
        { vat: "BE0244142664", match: { street: "Auguste Reyerslaan 52" }, reference: "vrt" },
        { vat: "IE6388047V" },
      ],
    });
    const batch = await waitForBatch(send, created.id);
    expect(batch.counts).toMatchObject({ total: 3, done: 3, failed: 0 });
    const items = await allItems(send, created.id);
    expect(items.map((item) => item.vat?.match ?? null)).toEqual([
      matched({ overall: "partial", name: local("match"), city: local("mismatch") }),
      matched({ overall: "match", street: local("match") }),
      null,
    ]);
    const record = await harness.request<ValidationRecord>("GET", `/validations/${created.id}.0`, {
      key: secret,
    });
    expect(record.body.match).toEqual({
      sent: { name: "GitHub BV", city: "Rotterdam" },
      result: matched({ overall: "partial", name: local("match"), city: local("mismatch") }),
    });
  });

  test("CSV: the match_* columns make up `match`, empty cells are not sent; the results come back as columns", async () => {
    const { send } = await keyed();
    const body =
      "vat,match_name,match_postcode,match_city,notes\r\n" +
      "NL854265259B01,GITHUB,1017 HL,,x\r\n" +
      "LU20260743,,,Luxembourg,\r\n" +
      "IE6388047V,,,,\r\n";
    const response = await send("POST", "/batches", { body, headers: { "content-type": "text/csv" } });
    expect(response.status).toBe(202);
    const batch = await waitForBatch(send, ((await response.json()) as Batch).id);
    const items = await allItems(send, batch.id);
    expect(items.map((item) => item.vat?.match ?? null)).toEqual([
      matched({ overall: "match", name: local("match"), postcode: local("match") }),
      matched({ overall: "match", city: local("match") }),
      null,
    ]);
    const page = await send("GET", `/batches/${batch.id}/items`, { headers: { accept: "text/csv" } });
    const [header = [], ...rows] = [
      ...csvRecords(await page.text(), { maxFields: 64, maxRecordLength: 4096 }),
    ];
    const columns = [
      "vat_match",
      "vat_match_name",
      "vat_match_postcode",
      "vat_match_city",
      "vat_match_street",
    ];
    expect(rows.map((row) => columns.map((name) => row[header.indexOf(name)]))).toEqual([
      ["match", "match", "match", "", ""],
      ["match", "", "", "match", ""],
      ["", "", "", "", ""],
    ]);
  });
});

describe("batch items with `match` for a Spanish number (Spain compares details itself)", () => {
  test("JSON and CSV: the member state's codes, fresh and billed; the record keeps them", async () => {
    const { send, secret } = await keyed();
    const created = await createBatch(send, {
      items: [
        { vat: "ESB83891812", match: { name: "Rodrisa Automoviles", postcode: "28430", city: "Madrid" } },
      ],
    });
    const batch = await waitForBatch(send, created.id);
    const [item] = await allItems(send, created.id);
    const expected = matched({
      overall: "partial",
      name: authority("match"),
      postcode: authority("match"),
      city: authority("mismatch"),
    });
    expect({ done: batch.counts.done, billable: item?.billable, match: item?.vat?.match }).toEqual({
      done: 1,
      billable: true,
      match: expected,
    });
    const record = await harness.request<ValidationRecord>("GET", `/validations/${created.id}.0`, {
      key: secret,
    });
    expect(record.body.match?.result).toEqual(expected);

    const csv = await send("POST", "/batches", {
      body: "vat,match_name\r\nESB83891812,Another Company SA\r\n",
      headers: { "content-type": "text/csv" },
    });
    const fromCsv = await waitForBatch(send, ((await csv.json()) as Batch).id);
    const [csvItem] = await allItems(send, fromCsv.id);
    expect(csvItem?.vat?.match).toEqual(matched({ overall: "mismatch", name: authority("mismatch") }));
  });
});

describe("batch items with a `match` it cannot use: the whole batch is refused, the item named", () => {
  test.each([
    [
      "JSON, without `vat`",
      "application/json",
      JSON.stringify({
        items: [{ vat: "NL854265259B01" }, { iban: "NL91ABNA0417164300", match: { name: "x" } }],
      }),
      "item 1: `match` is compared with a VAT number's record: send `vat` with it",
    ],
    [
      "JSON, a field it does not know",
      "application/json",
      JSON.stringify({ items: [{ vat: "NL854265259B01", match: { town: "x" } }] }),
      "item 0: `match` has no field `town`; it takes name, street, postcode, city, company_type",
    ],
    [
      "JSON, not an object",
      "application/json",
      JSON.stringify({ items: [{ vat: "NL854265259B01", match: "GitHub" }] }),
      "item 0: `match` must be an object with any of name, street, postcode, city, company_type",
    ],
    [
      "JSON, a lone surrogate",
      "application/json",
      JSON.stringify({ items: [{ vat: "NL854265259B01", match: { name: "Git\udfffHub" } }] }),
      "item 0: `match.name` must not contain a lone UTF-16 surrogate (\\ud800–\\udfff)",
    ],
    [
      "CSV, too long",
      "text/csv",
      `vat,match_street\r\nNL854265259B01,ok\r\nNL854265259B01,${"s".repeat(201)}\r\n`,
      "item 1 (row 3): `match.street` must be at most 200 characters, got 201",
    ],
    [
      "CSV, without `vat`",
      "text/csv",
      "iban,match_name\r\nNL91ABNA0417164300,GitHub\r\n",
      "item 0 (row 2): `match` is compared with a VAT number's record: send `vat` with it",
    ],
  ])("%s → 400 invalid_request", async (_, contentType, body, message) => {
    const { send } = await keyed();
    const response = await send("POST", "/batches", { body, headers: { "content-type": contentType } });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: { error: { code: "invalid_request", message } },
    });
  });
});
