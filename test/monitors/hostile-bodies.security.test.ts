import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { type Harness, startHarness } from "../support/harness.ts";
import { mutatedBodies } from "../support/mutations.ts";
import { prng, seedFrom } from "../support/prng.ts";

/**
 * Hostile bodies against POST /monitors (JSON one and list, CSV) and PATCH /monitors/{id},
 * through the harness (which checks every answer against its schema): never a 500, only the
 * statuses the routes document, nothing created or changed by a refused body, nothing logged as
 * unhandled. Seeded; MONITOR_FUZZ_SEED replays a run.
 */

const SEED = seedFrom("MONITOR_FUZZ_SEED");
console.log(`monitor body fuzz seed: ${SEED} (replay with MONITOR_FUZZ_SEED=${SEED})`);

let harness: Harness;
let key: string;
let keyId: string;
let monitorId: string;
let sent = 0;

beforeAll(async () => {
  harness = await startHarness({ env: { BATCH_MAX_ITEMS: "50" } });
  const created = await harness.createKey("pro", { rate: 1_000_000, quota: 100_000_000 });
  key = created.secret;
  keyId = created.keyId;
  const monitor = await harness.request<{ id: string }>("POST", "/monitors", {
    key,
    body: { vat: "NL854265259B01", reference: "r" },
  });
  monitorId = monitor.body.id;
});
afterAll(() => harness.close());

/** The key's monitors as stored: what a refused body must leave as it was. */
const stored = async () =>
  JSON.stringify(
    await harness.services.database.rows(
      sql`SELECT id, vat_number, reference, interval_days, status, webhook_url, match::text FROM monitors WHERE key_id = ${keyId} ORDER BY id`,
    ),
  );

/** Sends one body; a refusal must change nothing. A failure names the case and the seed. */
async function send(
  method: "POST" | "PATCH",
  label: string,
  body: string | Uint8Array,
  contentType = "application/json",
): Promise<number> {
  sent += 1;
  const before = await stored();
  const path = method === "POST" ? "/monitors" : `/monitors/${monitorId}`;
  try {
    const response = await harness.request(method, path, {
      key,
      rawBody: body,
      headers: { "content-type": contentType },
    });
    expect(method === "POST" ? [200, 201, 400, 413] : [200, 400, 413]).toContain(response.status);
    if (response.status >= 400) expect(await stored()).toBe(before);
    return response.status;
  } catch (error) {
    throw new Error(`${method} case "${label}" (seed ${SEED}): ${(error as Error).message}`);
  }
}

const VALID_POSTS = [
  JSON.stringify({ vat: "LU20260743", reference: "c-1", interval_days: 7 }),
  JSON.stringify({
    vat: "BE0244142664",
    match: { name: "VRT", city: "Brussel" },
    webhook_url: "https://93.184.215.14/hooks",
  }),
  JSON.stringify({ items: [{ vat: "IE6388047V" }, { vat: "DE811569869", interval_days: 365 }] }),
];
const VALID_PATCHES = [
  JSON.stringify({ interval_days: 14 }),
  JSON.stringify({ status: "paused", reference: null }),
  JSON.stringify({ reference: "ünïcödé 🎉", status: "active" }),
];
const VALID_CSV = "vat,reference,interval_days,match_name\r\nLU20260743,c-1,7,Amazon\r\nIE6388047V,,,\r\n";

/** Values that break naive code: wrong types, extremes, prototype keys, deep nesting. */
const AWKWARD: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -0,
  "",
  " ",
  "7",
  "\u0000",
  "\ud800",
  "x".repeat(5000),
  [],
  [1, 2],
  {},
  { toString: 1 },
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__": {"polluted": true}}'),
  JSON.parse("[".repeat(2000) + "]".repeat(2000)),
];

describe("POST /monitors", () => {
  test("mutations of valid bodies, JSON and CSV", async () => {
    const random = prng(SEED + 1);
    for (const [index, body] of mutatedBodies(random, VALID_POSTS, 250).entries())
      await send("POST", `json mutation #${index}`, body);
    for (const [index, body] of mutatedBodies(random, [VALID_CSV], 120).entries())
      await send("POST", `csv mutation #${index}`, body, "text/csv");
  });

  test("awkward values in every field, of one number and of a list's item", async () => {
    const random = prng(SEED + 2);
    const fields = ["vat", "reference", "interval_days", "match", "webhook_url", "items"];
    for (let index = 0; index < 200; index++) {
      const field = random.pick(fields);
      const value = random.pick(AWKWARD);
      const one: Record<string, unknown> = { vat: "LU20260743", [field]: value };
      await send("POST", `one with ${field}`, JSON.stringify(one));
      if (field === "items" || field === "webhook_url") continue;
      const item: Record<string, unknown> = { vat: "IE6388047V", [field]: value };
      await send("POST", `item with ${field}`, JSON.stringify({ items: [{ vat: "BE0244142664" }, item] }));
    }
  });

  test("random bytes, as JSON and as CSV", async () => {
    const random = prng(SEED + 3);
    for (let index = 0; index < 200; index++) {
      const body = Uint8Array.from({ length: random.int(400) }, () => random.int(256));
      await send("POST", `random #${index}`, body, random.int(2) === 0 ? "text/csv" : "application/json");
    }
  });
});

describe("PATCH /monitors/{id}", () => {
  test("mutations of valid bodies, and awkward values in every field", async () => {
    const random = prng(SEED + 4);
    for (const [index, body] of mutatedBodies(random, VALID_PATCHES, 300).entries())
      await send("PATCH", `mutation #${index}`, body);
    for (let index = 0; index < 200; index++) {
      const field = random.pick(["interval_days", "reference", "webhook_url", "status"]);
      await send("PATCH", `awkward ${field}`, JSON.stringify({ [field]: random.pick(AWKWARD) }));
    }
  });
});

test("nothing was logged as unhandled, and nothing was polluted", () => {
  expect(sent).toBeGreaterThan(1000);
  expect(harness.logs.filter((line) => line.event === "unhandled_error")).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
