import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type SQL, sql } from "drizzle-orm";
import { dueUnits } from "../../src/background/due-units.ts";
import { FairShare } from "../../src/background/fair-share.ts";
import type { Database } from "../../src/kernel/db.ts";
import {
  claimableMessages,
  claimMessages,
  dueMessages,
  HOSTS_READ_PER_KEY,
} from "../../src/webhooks/claims.ts";
import { WEBHOOK_SLOTS_PER_HOST, WEBHOOK_SLOTS_PER_KEY } from "../../src/webhooks/delivery.ts";
import { deleteWorkOf, proKey, testKeyStore } from "../support/database.ts";
import { queueBacklog, queueMessage } from "../support/webhook-messages.ts";

/**
 * The claims of webhook messages, on the real database: what a claim reads of a key's messages
 * is bounded by its window and the key's hosts, whatever backlog waits for a host at its cap;
 * of a host it takes only the room left, earliest first.
 */
let database: Database;
const keys: string[] = [];

beforeAll(async () => {
  database = (await testKeyStore()).database;
});
// Claimed and left, these keys' messages would be due again for the next file's workers.
afterAll(() => deleteWorkOf(database, keys));

async function newKey(name: string): Promise<string> {
  const id = await proKey((await testKeyStore()).keys, name);
  keys.push(id);
  return id;
}

/** A worker's slots (the delivery's caps) with `host` at its cap, held by another key's attempts. */
function slotsWithFull(host: string): FairShare {
  const slots = new FairShare(16, WEBHOOK_SLOTS_PER_KEY, WEBHOOK_SLOTS_PER_HOST);
  for (let held = 0; held < WEBHOOK_SLOTS_PER_HOST; held++) slots.take("another key", host);
  return slots;
}

/** Queued messages of `keyId` to `url`, due one second apart in the order given, an hour ago at the latest. */
async function queueInOrder(keyId: string, url: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = await queueMessage(database, keyId, url);
    await database.rows(sql`
      UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 hour' - ${count - index} * interval '1 second'
      WHERE id = ${id}`);
    ids.push(id);
  }
  return ids;
}

/** Rows of webhook_deliveries that running `query` read: those its scans of the table returned, and those their filters dropped. */
async function rowsRead(query: SQL): Promise<number> {
  type Node = {
    "Relation Name"?: string;
    "Actual Rows": number;
    "Actual Loops": number;
    "Rows Removed by Filter"?: number;
    Plans?: Node[];
  };
  const [row] = await database.rows<Record<string, unknown>>(sql`EXPLAIN (ANALYZE, FORMAT JSON) ${query}`);
  const answer = Object.values(row ?? {})[0];
  const [{ Plan }] = (typeof answer === "string" ? JSON.parse(answer) : answer) as [{ Plan: Node }];
  const read = (node: Node): number =>
    (node["Relation Name"] === "webhook_deliveries"
      ? (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0)) * node["Actual Loops"]
      : 0) + (node.Plans ?? []).reduce((sum, child) => sum + read(child), 0);
  return read(Plan);
}

/** The ids of what a claim took, which it returns in no order. */
const idsOf = (claimed: { id: string }[]) => claimed.map(({ id }) => id).sort();

describe("webhook claims", () => {
  test("a key's backlog to a host at its cap is not read; its messages to another host go, earliest first", async () => {
    const key = await newKey("claims backlog");
    const backlog = 20_000;
    // Due before any of the others, as a silent endpoint's messages are while they wait.
    await queueBacklog(database, key, "http://full.test/in", backlog, sql`now() - interval '2 hours'`);
    const others = await queueInOrder(key, "http://free.test/in", 6);
    const slots = slotsWithFull("full.test");

    // A few dozen rows (the window, one probe per host, each free host's room), not the backlog.
    const read = await rowsRead(sql`SELECT * FROM (${dueMessages(slots.free, sql`${key}`, slots)}) AS d`);
    console.log(`webhook claims: ${read} rows read of a key with ${backlog} messages to a full host`);
    expect(read).toBeLessThan(100);

    const claim = async (take: number) => {
      const claimed = await claimMessages(database, [{ keyId: key, take }], 60_000, [], {
        slots,
        window: slots.free,
      });
      for (const message of claimed) slots.take(message.keyId, message.host);
      return claimed;
    };
    const first = await claim(2);
    expect(idsOf(first)).toEqual(others.slice(0, 2).sort());
    expect(first.map(({ host }) => host)).toEqual(["free.test", "free.test"]);
    // Only the host's room is taken, however much the key may take.
    expect(idsOf(await claim(4))).toEqual(others.slice(2, 4).sort());

    // Both hosts full: the key asks for nothing, and a claim takes nothing.
    const [due] = (await dueUnits(database, claimableMessages(slots), "", 16)).filter(
      ({ keyId }) => keyId === key,
    );
    expect(due?.due).toBe(0);
    expect(await claim(4)).toEqual([]);
  }, 60_000);

  test("a key with more hosts than a claim reads one by one still has its earliest messages read", async () => {
    const key = await newKey("claims many hosts");
    const hosts = Array.from(
      { length: HOSTS_READ_PER_KEY + 8 },
      (_, index) => `h${String(index).padStart(3, "0")}.test`,
    );
    // The last host in name order, past those read one by one, has the key's earliest message.
    const [last] = await queueInOrder(key, `http://${hosts.at(-1)}/in`, 1);
    for (const host of hosts.slice(0, -1)) await queueMessage(database, key, `http://${host}/in`);
    const slots = new FairShare(16, WEBHOOK_SLOTS_PER_KEY, WEBHOOK_SLOTS_PER_HOST);
    const claimed = await claimMessages(database, [{ keyId: key, take: 1 }], 60_000, [], {
      slots,
      window: slots.free,
    });
    expect(idsOf(claimed)).toEqual([last as string]);
  }, 60_000);
});
