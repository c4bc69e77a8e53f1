import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { FairShare } from "../../src/background/fair-share.ts";
import { claimableItems } from "../../src/batches/due.ts";
import { createBatch } from "../../src/batches/store.ts";
import {
  claimItems,
  dueBatches,
  type ItemOutcome,
  keepClaimed,
  recordFinished,
  renewLeases,
  rescheduleItem,
} from "../../src/batches/work.ts";
import type { Database } from "../../src/kernel/db.ts";
import { deleteWorkOf, proKey, testKeyStore } from "../support/database.ts";
import { createVatNumberSource } from "../support/synthetic-vat-numbers.ts";
import { danishNumbers } from "../support/vat-numbers.ts";
import { freshVatResult } from "../support/vat-results.ts";

/** The claims of batch items, on the real database: each claim holds its items under a token of its own. */
let database: Database;
let keyId: string;
/** The keys made here, whose batches go at the end: claimed and left, they would be due again. */
const keyIds: string[] = [];

async function ownKey(name: string): Promise<string> {
  const id = await proKey((await testKeyStore()).keys, name);
  keyIds.push(id);
  return id;
}

beforeAll(async () => {
  database = (await testKeyStore()).database;
  keyId = await ownKey("claims");
});
afterAll(() => deleteWorkOf(database, keyIds));

const outcome = (item: ItemOutcome["item"]): ItemOutcome => ({
  item,
  status: "done",
  vat: null,
  iban: null,
  error: null,
  valid: true,
});

/** A batch of `owner`'s, of these VAT numbers. */
async function batchOf(owner: string, vats: string[]) {
  const batch = await createBatch(database, {
    keyId: owner,
    items: vats.map((vat) => ({ vat })),
    webhookUrl: null,
    plan: { id: "pro", limits: { active: 100, itemsPerDay: 100_000 } },
  });
  return { id: batch.id, keyId: owner };
}

const newBatch = (size: number, owner = keyId) =>
  batchOf(
    owner,
    Array.from({ length: size }, (_, index) => `DE${index}`),
  );

describe("claims", () => {
  test("a claim skips what another claim holds, and takes it once its lease has run out", async () => {
    const batch = await newBatch(4);
    const first = await claimItems(database, [{ ...batch, take: 2 }], 300);
    const second = await claimItems(database, [{ ...batch, take: 10 }], 60_000);
    expect(first.map((item) => item.index)).toEqual([0, 1]);
    expect(second.map((item) => item.index)).toEqual([2, 3]);
    expect(first[0]?.token).not.toBe(second[0]?.token);
    expect(await claimItems(database, [{ ...batch, take: 10 }], 60_000)).toEqual([]);
    await Bun.sleep(350);
    const again = await claimItems(database, [{ ...batch, take: 10 }], 60_000);
    expect(again.map((item) => [item.index, item.attempts])).toEqual([
      [0, 2],
      [1, 2],
    ]);
  });

  test("an item claimed twice (its lease ran out while it was worked on) stands once: for the latest claim", async () => {
    const batch = await newBatch(1);
    const [stale] = await claimItems(database, [{ ...batch, take: 1 }], 100);
    await Bun.sleep(150);
    const [latest] = await claimItems(database, [{ ...batch, take: 1 }], 60_000);
    if (!stale || !latest) throw new Error("expected both claims");
    const kept = await database.transaction((rows) =>
      keepClaimed(rows, [outcome(stale), outcome(latest), outcome(latest)]),
    );
    expect(kept).toEqual([false, true, false]);
  });

  test("renewing keeps a claim's items from being taken; items no longer renewed are", async () => {
    const batch = await newBatch(2);
    const [held, dropped] = await claimItems(database, [{ ...batch, take: 2 }], 300);
    await Bun.sleep(200);
    await renewLeases(database, [held?.token ?? ""], 60_000);
    await Bun.sleep(150);
    // Both came from one claim, so renewing its token kept both.
    expect(await claimItems(database, [{ ...batch, take: 10 }], 60_000)).toEqual([]);
    expect(dropped?.token).toBe(held?.token);
    const [row] = await database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM batch_items WHERE batch_id = ${batch.id} AND lease_until > now() + interval '30 seconds'`,
    );
    expect(row?.n).toBe(2);
  });
});

describe("due batches", () => {
  test("a batch whose items all wait is not looked at until the first of them is due", async () => {
    // A key of its own: due batches are one per key.
    const own = await newBatch(2, await ownKey("waiting"));
    const due = async () => (await dueBatches(database, "", 10_000)).filter((batch) => batch.id === own.id);
    expect(await due()).toEqual([{ ...own, due: 2 }]);
    const [first, second] = await claimItems(database, [{ ...own, take: 2 }], 60_000);
    if (!first || !second) throw new Error("expected two items");
    // Claimed: both items are leased, so the batch has nothing due until a lease runs out.
    expect(await claimItems(database, [{ ...own, take: 1 }], 60_000)).toEqual([]);
    expect(await due()).toEqual([]);
    await rescheduleItem(database, first, 300, 3600);
    expect(await due()).toEqual([]);
    await Bun.sleep(350);
    expect(await due()).toEqual([{ ...own, due: 1 }]);
    expect((await claimItems(database, [{ ...own, take: 5 }], 60_000)).map((item) => item.index)).toEqual([
      0,
    ]);
    expect(await due()).toEqual([]);
  });

  test("one claim statement serves several batches, each up to what it was given", async () => {
    const [a, b] = [await newBatch(3), await newBatch(3)];
    const claimed = await claimItems(
      database,
      [
        { ...a, take: 1 },
        { ...b, take: 2 },
      ],
      60_000,
    );
    expect(claimed.map((item) => [item.batchId, item.index])).toEqual(
      [
        [a.id, 0],
        [b.id, 0],
        [b.id, 1],
      ].sort(([x], [y]) => String(x).localeCompare(String(y))),
    );
    expect(new Set(claimed.map((item) => item.token)).size).toBe(1);
  });

  test("keys take turns: each call starts after the key the last one ended with", async () => {
    const keys = [await ownKey("turn 1"), await ownKey("turn 2")].sort();
    for (const key of keys)
      await createBatch(database, {
        keyId: key,
        items: [{ vat: "DE1" }],
        webhookUrl: null,
        plan: { id: "pro", limits: { active: 100, itemsPerDay: 100_000 } },
      });
    const [k1, k2] = keys as [string, string];
    const justBefore = `${k1.slice(0, -1)}${String.fromCharCode(k1.charCodeAt(k1.length - 1) - 1)}`;
    const first = await dueBatches(database, justBefore, 1);
    expect(first.map((batch) => batch.keyId)).toEqual([k1]);
    const second = await dueBatches(database, k1, 1);
    expect(second[0]?.keyId).not.toBe(k1);
    expect((await dueBatches(database, k2, 10_000)).at(-1)?.keyId).toBe(k2);
  });
});

describe("member states at their cap", () => {
  test("a claim takes of a member state only the room left for it, first to the key holding least of it", async () => {
    const [a, b] = [await ownKey("state cap a"), await ownKey("state cap b")];
    const numbers = createVatNumberSource();
    const heavy = await batchOf(a, numbers.take(5, ["DE"]));
    const light = await batchOf(b, [...numbers.take(2, ["DE"]), ...numbers.take(2, ["FI"])]);
    // Three DE items at a time; a holds two of them: one more of DE may be taken, and it goes to b.
    const slots = new FairShare(100, Number.POSITIVE_INFINITY, 3);
    slots.take(a, "DE");
    slots.take(a, "DE");
    const due = (await dueBatches(database, "", 10_000, slots)).filter(
      ({ keyId }) => keyId === a || keyId === b,
    );
    expect(due.map(({ keyId, due }) => [keyId, due]).sort()).toEqual(
      [
        [a, 1],
        [b, 3],
      ].sort(),
    );
    const claimed = await claimItems(
      database,
      [
        { ...heavy, take: 5 },
        { ...light, take: 5 },
      ],
      60_000,
      [],
      { slots, window: 10 },
    );
    expect(claimed.map((item) => [item.batchId, item.index, item.prefix])).toEqual([
      [light.id, 0, "DE"],
      [light.id, 2, "FI"],
      [light.id, 3, "FI"],
    ]);
    // Without a cap, the same claim takes all that is left.
    const rest = await claimItems(
      database,
      [
        { ...heavy, take: 5 },
        { ...light, take: 5 },
      ],
      60_000,
    );
    const indexes = (batch: { id: string }) =>
      rest.filter((item) => item.batchId === batch.id).map((item) => item.index);
    expect([indexes(heavy), indexes(light)]).toEqual([[0, 1, 2, 3, 4], [1]]);
  });

  test("a batch sorted by state: its states behind a window of a state at its cap are read, and share its take", async () => {
    const owner = await ownKey("sorted states");
    const numbers = createVatNumberSource();
    const vats = [...numbers.take(6, ["DE"]), ...numbers.take(3, ["FI"]), ...numbers.take(3, ["NL"])];
    const batch = await batchOf(owner, vats);
    // Two items of a state at a time, and the key holds two of DE: a window of the batch's first
    // 4 due items holds only DE, which a claim may not take.
    const slots = new FairShare(100, Number.POSITIVE_INFINITY, 2);
    slots.take(owner, "DE");
    slots.take(owner, "DE");
    // Counted as a worker with 4 free slots counts it (`dueBatches`), for this batch alone.
    const [due] = await database.rows<{ n: number }>(
      sql`SELECT ${claimableItems(slots).due(sql`${batch.id}`, 4)} AS n`,
    );
    expect(due?.n).toBe(4);
    // A take of 2 goes to one item of each state, not to FI's first two.
    const claimed = await claimItems(database, [{ ...batch, take: 2 }], 60_000, [], { slots, window: 4 });
    expect(claimed.map((item) => [item.index, item.prefix])).toEqual([
      [6, "FI"],
      [9, "NL"],
    ]);
  });
});

describe("repeats", () => {
  test("a repeat is claimed by no claim until its first item is finished, and then with that item's answer", async () => {
    const own = await ownKey("repeats");
    const [a = "", b = ""] = danishNumbers(2, 34_000_000);
    const created = await createBatch(database, {
      keyId: own,
      items: [
        { vat: a },
        { vat: b },
        { vat: ` ${a.toLowerCase()}` },
        // Details compared here: the number's one call answers them too.
        { vat: a, match: { name: "Firma ApS" } },
        { vat: b, iban: "DE89370400440532013000" },
        // Spain compares details itself: a call for each set of them.
        { vat: "ESB83891812", match: { name: "Firma SL" } },
        { vat: "ESB83891812", match: { name: "Otra SL" } },
        { vat: "esb83891812", match: { name: "Firma SL" } },
      ],
      webhookUrl: null,
      plan: { id: "pro", limits: { active: 100, itemsPerDay: 100_000 } },
    });
    const batch = { id: created.id, keyId: own };
    const due = async () => (await dueBatches(database, "", 10_000)).filter(({ id }) => id === batch.id);
    expect(await due()).toEqual([{ ...batch, due: 4 }]);
    const firsts = await claimItems(database, [{ ...batch, take: 10 }], 60_000);
    expect(firsts.map((item) => [item.index, item.first])).toEqual([
      [0, null],
      [1, null],
      [5, null],
      [6, null],
    ]);
    // Another instance finds nothing due while the first items are worked on: repeats wait.
    expect(await claimItems(database, [{ ...batch, take: 10 }], 60_000)).toEqual([]);
    expect(await due()).toEqual([]);

    const answer = freshVatResult({
      input: a,
      vat_number: a,
      country_code: "DK",
      country_name: "Denmark",
      name: "Firma ApS",
      address: null,
      checked_at: "2026-03-15T12:00:00.000Z",
    });
    const [first] = firsts;
    if (!first) throw new Error("expected the first item");
    const finished = { ...outcome(first), vat: answer };
    await database.transaction(async (rows) => {
      expect(await keepClaimed(rows, [finished])).toEqual([true]);
      await recordFinished(rows, [finished], [true]);
    });
    expect(await due()).toEqual([{ ...batch, due: 2 }]);
    const repeats = await claimItems(database, [{ ...batch, take: 10 }], 60_000);
    expect(repeats.map((item) => [item.index, item.first])).toEqual([
      [2, { vat: answer }],
      [3, { vat: answer }],
    ]);
  });
});
