import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Batch, BatchItem } from "../../src/batches/schema.ts";
import type { Usage } from "../../src/http/schemas.ts";
import { allItems, createBatch, type Send, sendTo, waitForBatch } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { danishNumbers } from "../support/vat-numbers.ts";
import { callsPerNumber } from "../support/vies-calls.ts";

/**
 * Repeats within a batch (issue 21, defect 9): an item whose VAT number (as normalized) and
 * `match` an earlier item of its batch has is answered from that item's answer and billed as a
 * cache hit — one VIES call and one unit per number, however the items' work overlaps. VIES
 * answers slowly here, so every item is claimed while the first of its number is in flight.
 */
const WINDOW_SECONDS = 2;
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    background: true,
    env: { BATCH_POLL_MS: "20", BATCH_RETRY_WINDOW_SECONDS: String(WINDOW_SECONDS) },
  });
});
afterEach(() => harness.vies.reset());
afterAll(() => harness.close());

async function keyed(): Promise<{ send: Send }> {
  const key = await harness.createKey("pro", { rate: 1_000_000 });
  return { send: sendTo(harness, key.secret) };
}

/** Danish numbers the fake knows as registered, from `from` on. */
function registered(count: number, from: number): string[] {
  const numbers = danishNumbers(count, from);
  for (const number of numbers) {
    harness.vies.addNumber("DK", number.slice(2), {
      valid: true,
      name: `Firma ${number} ApS`,
      address: "Vestergade 1\n8000 Aarhus C",
    });
  }
  return numbers;
}

/** Other spellings of a Danish number that the format check reads as the same number. */
const spellings = (number: string) => [
  number,
  number.toLowerCase(),
  `DK ${number.slice(2, 4)} ${number.slice(4, 6)} ${number.slice(6, 8)} ${number.slice(8)}`,
  `dk-${number.slice(2, 6)}.${number.slice(6)}`,
];

async function usage(send: Send): Promise<Usage> {
  return (await (await send("GET", "/usage")).json()) as Usage;
}

/** The VAT number and the item's billing, in input order. */
const billing = (items: BatchItem[]) =>
  items.map((item) => [item.vat?.vat_number, item.billable, item.vat?.cached]);

describe("repeats within a batch", () => {
  const forms = [
    {
      form: "JSON",
      post: (send: Send, vats: string[]) => createBatch(send, { items: vats.map((vat) => ({ vat })) }),
    },
    {
      form: "CSV",
      async post(send: Send, vats: string[]) {
        const response = await send("POST", "/batches", {
          body: `vat\r\n${vats.map((vat) => `"${vat}"`).join("\r\n")}\r\n`,
          headers: { "content-type": "text/csv" },
        });
        expect(response.status).toBe(202);
        return (await response.json()) as Batch;
      },
    },
  ];

  for (const [round, { form, post }] of forms.entries()) {
    test(`${form}: one VIES call per number, billed once; its repeats, spelt any way, are cache hits`, async () => {
      const { send } = await keyed();
      const [a = "", b = "", c = ""] = registered(3, 30_000_000 + round * 100_000);
      harness.vies.setLatency({ DK: 300 });
      const from = harness.vies.calls.log.length;
      const [a1, a2, a3, a4] = spellings(a);
      const [b1, b2] = spellings(b);
      const vats = [a1, b1, a2, c, a3, a3, b2, a4, a1] as string[];
      const batch = await waitForBatch(send, (await post(send, vats)).id);

      expect(callsPerNumber(harness.vies, from, [a, b, c])).toEqual(
        new Map([
          [a, 1],
          [b, 1],
          [c, 1],
        ]),
      );
      expect(batch.counts).toMatchObject({ total: 9, done: 9, valid: 9, failed: 0, billed: 3 });
      const items = await allItems(send, batch.id);
      expect(billing(items)).toEqual([
        [a, true, false],
        [b, true, false],
        [a, false, true],
        [c, true, false],
        [a, false, true],
        [a, false, true],
        [b, false, true],
        [a, false, true],
        [a, false, true],
      ]);
      // A repeat is its first item's answer, as a cache hit is: that check's time and
      // reference, with its own spelling as `input`.
      const first = items[0]?.vat;
      for (const index of [2, 4, 5, 7, 8]) {
        expect(items[index]?.vat).toEqual({ ...first, input: vats[index], cached: true } as never);
      }
      expect(await usage(send)).toMatchObject({ used: 3, requests_this_month: 9 });
    });
  }

  test("the same number with other `match` details, compared here: one call, billed once, each item matched on its own details", async () => {
    const { send } = await keyed();
    const [number = ""] = registered(1, 31_000_000);
    harness.vies.setLatency({ DK: 300 });
    const from = harness.vies.calls.log.length;
    const right = { name: `Firma ${number} ApS` };
    const wrong = { name: "Another Company A/S" };
    const created = await createBatch(send, {
      items: [
        { vat: number, match: right },
        { vat: number, match: wrong },
        { vat: number.toLowerCase(), match: { ...right, city: "Aarhus C" } },
        { vat: number, match: { city: "Odense" } },
        { vat: number },
      ],
    });
    const batch = await waitForBatch(send, created.id);
    const items = await allItems(send, batch.id);
    expect(callsPerNumber(harness.vies, from, [number])).toEqual(new Map([[number, 1]]));
    expect(items.map((item) => item.vat?.match ?? null)).toEqual([
      { overall: "match", name: { result: "match", by: "local" } },
      { overall: "mismatch", name: { result: "mismatch", by: "local" } },
      { overall: "match", name: { result: "match", by: "local" }, city: { result: "match", by: "local" } },
      { overall: "mismatch", city: { result: "mismatch", by: "local" } },
      null,
    ]);
    expect(items.map((item) => [item.billable, item.vat?.cached])).toEqual([
      [true, false],
      [false, true],
      [false, true],
      [false, true],
      [false, true],
    ]);
    expect(batch.counts).toMatchObject({ done: 5, failed: 0, billed: 1 });
  });

  test("a Spanish number with other details is no repeat: Spain compares each itself, one call and one unit each", async () => {
    const { send } = await keyed();
    const from = harness.vies.calls.log.length;
    const spanish = "ESB83891812";
    const right = { name: "Rodrisa Automoviles" };
    const wrong = { name: "Another Company SA" };
    const created = await createBatch(send, {
      items: [
        { vat: spanish, match: right },
        { vat: spanish, match: wrong },
        { vat: spanish.toLowerCase(), match: { ...right } },
      ],
    });
    const batch = await waitForBatch(send, created.id);
    const items = await allItems(send, batch.id);
    expect(callsPerNumber(harness.vies, from, [spanish]).get(spanish)).toBe(2);
    expect(items.map((item) => [item.vat?.match?.overall, item.vat?.match?.name?.by, item.billable])).toEqual(
      [
        ["match", "authority", true],
        ["mismatch", "authority", true],
        ["match", "authority", false],
      ],
    );
    expect(batch.counts).toMatchObject({ done: 3, failed: 0, billed: 2 });
  });

  test("a repeat of an item that failed fails the same way, unbilled, without asking VIES", async () => {
    const { send } = await keyed();
    const [down = ""] = danishNumbers(1, 32_000_000);
    harness.vies.setBehaviour("DK", { kind: "fault", fault: "MS_UNAVAILABLE" });
    const from = harness.vies.calls.log.length;
    const created = await createBatch(send, {
      items: [{ vat: down }, { vat: down.toLowerCase() }, { vat: down, iban: "DE89370400440532013000" }],
    });
    const batch = await waitForBatch(send, created.id, { timeoutMs: WINDOW_SECONDS * 1000 + 10_000 });
    const items = await allItems(send, batch.id);
    expect(items.map((item) => [item.status, item.error?.code ?? null, item.billable])).toEqual([
      ["failed", "member_state_unavailable", false],
      ["failed", "member_state_unavailable", false],
      // Its IBAN is answered (and billed, as every checked IBAN is); its VAT number failed alike.
      ["done", null, true],
    ]);
    expect(items[2]?.vat?.error).toEqual(items[0]?.vat?.error ?? null);
    // The first item was tried until the window closed; each repeat was taken once, after it.
    const attempts = await harness.services.database.rows<{ idx: number; attempts: number }>(
      sql`SELECT idx, attempts FROM batch_items WHERE batch_id = ${batch.id} ORDER BY idx`,
    );
    expect(attempts.slice(1).map((row) => row.attempts)).toEqual([1, 1]);
    expect(callsPerNumber(harness.vies, from, [down]).get(down)).toBe(attempts[0]?.attempts);
    expect(batch.counts).toMatchObject({ done: 1, failed: 2, billed: 1 });
  });
});
