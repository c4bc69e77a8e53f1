import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { csvRecords } from "../../src/batches/csv.ts";
import type { Batch, BatchItem } from "../../src/batches/schema.ts";
import type { ValidateResponse } from "../../src/http/schemas.ts";
import type { VatResult } from "../../src/vat/schema.ts";
import { DEFAULT_VIES_REGISTRY } from "../fakes/vies.ts";
import examples from "../fixtures/iban-examples.json" with { type: "json" };
import { allItems, createBatch, readBatch, type Send, sendTo, waitForBatch } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { prng } from "../support/prng.ts";
import { wellFormedVatNumbers } from "../support/vat-numbers.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

let harness: Harness;
let receiver: WebhookReceiver;

beforeAll(async () => {
  harness = await startHarness({
    background: true,
    env: {
      BATCH_POLL_MS: "20",
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_BACKOFF_BASE_MS: "100",
    },
  });
  receiver = startWebhookReceiver();
});
afterAll(async () => {
  await harness.close();
  await receiver.stop();
});

async function keyed(plan: "free" | "basic" | "pro" = "pro", overrides: { quota?: number } = {}) {
  const key = await harness.createKey(plan, { rate: 1_000_000, ...overrides });
  return { ...key, send: sendTo(harness, key.secret) };
}

async function usageOf(
  send: Send,
): Promise<{ used: number; requests_this_month: number; remaining: number | null }> {
  return (await (await send("GET", "/usage")).json()) as never;
}

const VALID_IBANS = Object.values(examples as Record<string, string>);
/** The last check digit off by one: structure right, checksum wrong (billable, invalid_checksum). */
const wrongChecksum = (iban: string) => `${iban.slice(0, 3)}${(Number(iban[3]) + 1) % 10}${iban.slice(4)}`;

/** A VAT result as /validate gives it, but whether it came from the cache, which depends on what came first. */
const sameAnswer = (vat: VatResult | undefined) => vat && { ...vat, cached: undefined };

describe("a 1,000-item mixed batch", () => {
  test("every item is answered as /validate answers it; counts, billing and /usage are exact", async () => {
    const random = prng(20261125);
    const fresh = wellFormedVatNumbers(random);
    const registered = Array.from({ length: 40 }, () => fresh());
    for (const number of registered) {
      harness.vies.addNumber(number.slice(0, 2), number.slice(2), { valid: true, name: `ACME ${number}` });
    }
    const unregistered = Array.from({ length: 120 }, () => fresh());
    const cached = Array.from({ length: 20 }, () => fresh());
    const malformed = ["DE12", "XX123456789", "NL123456789B00", "FR", "ATU1234", "EL1", "GB12"];
    const vats = [
      ...Object.keys(DEFAULT_VIES_REGISTRY),
      ...registered,
      ...unregistered,
      ...cached,
      ...malformed,
    ];
    const ibans = [
      ...VALID_IBANS,
      ...VALID_IBANS.slice(0, 30).map(wrongChecksum),
      "DE89 3704 0044 0532 0130",
      "XX89370400440532013000",
      "DE89-3704!0044",
    ];
    // Numbers checked before the batch, by another key: the batch finds them in the cache.
    const other = await keyed();
    for (const number of cached)
      expect((await harness.validate(other.secret, { vat: number })).status).toBe(200);

    const items = Array.from({ length: 1000 }, (_, index) => {
      const shape = random.int(3);
      return {
        ...(shape !== 1 && { vat: random.pick(vats) }),
        ...(shape !== 0 && { iban: random.pick(ibans) }),
        reference: `customer-${index}`,
      };
    });
    harness.vies.setConcurrencyLimit("*", 4);
    const { keyId, secret, send } = await keyed();
    const created = await createBatch(send, { items });
    expect(created.counts).toEqual({ total: 1000, done: 0, valid: 0, invalid: 0, failed: 0, billed: 0 });
    const batch = await waitForBatch(send, created.id, { timeoutMs: 60_000 });
    const results = await allItems(send, created.id, 300);
    harness.vies.setConcurrencyLimit("*", null);

    expect(batch.status).toBe("completed");
    expect(results.map((item) => [item.index, item.reference, item.status])).toEqual(
      items.map((item, index) => [index, item.reference, "done"]),
    );
    // Each as /validate answers it, asked by a third key now (so VAT numbers come from the cache).
    const checker = await keyed();
    for (const [index, item] of results.entries()) {
      const { reference: _, ...input } = items[index] as { vat?: string; iban?: string; reference: string };
      const answer = await harness.validate<ValidateResponse & { error?: { code: string } }>(
        checker.secret,
        input,
      );
      if (answer.status === 200) {
        expect({ index, vat: sameAnswer(item.vat), iban: item.iban }).toEqual({
          index,
          vat: sameAnswer(answer.body.vat),
          iban: answer.body.iban,
        });
      } else {
        // /validate refuses the request (400) when no component could be answered: the item
        // carries the same rejection, as a malformed answer.
        expect({ index, code: (item.vat ?? item.iban)?.error?.code as string | undefined }).toEqual({
          index,
          code: answer.body.error?.code,
        });
      }
    }
    // Billed: a fresh answer of VIES, or an IBAN whose checksum ran — once per item.
    const billable = (item: BatchItem) =>
      (item.vat !== undefined && item.vat.source === "vies" && !item.vat.cached && item.vat.valid !== null) ||
      (item.iban !== undefined && (item.iban.valid === true || item.iban.error?.code === "invalid_checksum"));
    expect(results.filter((item) => item.billable !== billable(item))).toEqual([]);
    const billed = results.filter((item) => item.billable).length;
    const valid = results.filter((item) =>
      [item.vat, item.iban].every((c) => c === undefined || c.valid !== false),
    );
    expect(batch.counts).toEqual({
      total: 1000,
      done: 1000,
      valid: valid.length,
      invalid: 1000 - valid.length,
      failed: 0,
      billed,
    });
    expect(billed).toBeGreaterThan(500);
    expect(await usageOf(send)).toMatchObject({ used: billed, requests_this_month: 1000 });
    expect(Math.max(...Object.values(harness.vies.calls.maxInFlight))).toBeLessThanOrEqual(4);
    // The proof of each fresh VIES answer is kept under {batch}.{index}.
    const freshOne = results.find(
      (item) => item.vat?.source === "vies" && !item.vat.cached && item.vat.valid,
    );
    const record = await harness.request("GET", `/validations/${created.id}.${freshOne?.index}`, {
      key: secret,
    });
    expect(record.body).toMatchObject({
      key_id: keyId,
      vat_number: freshOne?.vat?.vat_number,
      valid: true,
      checked_at: freshOne?.vat?.checked_at,
      source: "vies",
    });
  }, 120_000);
});

describe("quota", () => {
  test("used up mid-batch: items that need fresh work fail with quota_exceeded, cached ones are answered", async () => {
    const other = await keyed();
    expect((await harness.validate(other.secret, { vat: "BE0244142664" })).status).toBe(200);
    const { send } = await keyed("pro", { quota: 5 });
    const items = [
      ...VALID_IBANS.slice(0, 8).map((iban) => ({ iban })),
      { vat: "BE0244142664" },
      { vat: "BE 0244.142.664" },
      { vat: "DE12" },
    ];
    const batch = await waitForBatch(send, (await createBatch(send, { items })).id);
    const results = await allItems(send, batch.id);
    expect(batch.counts).toMatchObject({ total: 11, done: 8, failed: 3, billed: 5 });
    expect(results.filter((item) => item.status === "failed").map((item) => item.error?.code)).toEqual([
      "quota_exceeded",
      "quota_exceeded",
      "quota_exceeded",
    ]);
    expect(results.slice(8).map((item) => [item.status, item.billable, item.vat?.cached])).toEqual([
      ["done", false, true],
      ["done", false, true],
      ["done", false, false],
    ]);
    // Every item that finished counts as a request, refused ones too, as /validate counts them.
    expect(await usageOf(send)).toMatchObject({ used: 5, remaining: 0, requests_this_month: 11 });
  });

  test("a batch is accepted with the quota used up: cache hits and malformed input cost nothing", async () => {
    const { send } = await keyed("pro", { quota: 0 });
    const batch = await waitForBatch(
      send,
      (await createBatch(send, { items: [{ vat: "DE12" }, { iban: VALID_IBANS[0] }] })).id,
    );
    expect(batch.counts).toMatchObject({ done: 1, failed: 1, billed: 0 });
  });
});

describe("cancelling", () => {
  test("items not done become cancelled, unbilled, also those under way; the webhook says so", async () => {
    const random = prng(7);
    const slow = wellFormedVatNumbers(random);
    const numbers = Array.from({ length: 40 }, () => slow());
    harness.vies.setLatency(400);
    const { send } = await keyed();
    const created = await createBatch(send, {
      items: [...VALID_IBANS.slice(0, 5).map((iban) => ({ iban })), ...numbers.map((vat) => ({ vat }))],
      webhook_url: receiver.url,
    });
    await waitForBatch(send, created.id, { done: (batch) => batch.counts.done >= 5 });
    const response = await send("DELETE", `/batches/${created.id}`);
    expect(response.status).toBe(200);
    const cancelled = (await response.json()) as Batch;
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.completed_at).not.toBeNull();
    // Calls under way when it was cancelled come back, and change nothing.
    await Bun.sleep(1500);
    harness.vies.setLatency(0);
    const after = await readBatch(send, created.id);
    const results = await allItems(send, created.id);
    expect(after.counts).toEqual(cancelled.counts);
    expect(results.filter((item) => item.status === "cancelled").length).toBe(45 - after.counts.done);
    expect(results.filter((item) => item.status === "cancelled" && (item.billable || item.vat))).toEqual([]);
    expect((await usageOf(send)).used).toBe(after.counts.billed);
    const [message] = (await receiver.waitFor(1)).filter((received) => received.body.includes(created.id));
    expect(JSON.parse(message?.body ?? "{}")).toMatchObject({
      type: "batch.cancelled",
      data: { id: created.id, status: "cancelled" },
    });
    // Cancelling again, or a finished batch: answered as it is.
    expect(((await (await send("DELETE", `/batches/${created.id}`)).json()) as Batch).status).toBe(
      "cancelled",
    );
  });
});

describe("CSV", () => {
  test("a CSV body in, a CSV page out: the same items as JSON", async () => {
    const { send } = await keyed();
    // c-4: iban4j's Spanish IBAN whose control digits (national check) fail.
    const body = `reference,vat,iban,notes\r\nc-1,NL854265259B01,,first\r\n"c,2",,${VALID_IBANS[1]},\r\nc-3,DE12,XX00,\r\nc-4,,ES4221000418450200061332,\r\n`;
    const response = await send("POST", "/batches", { body, headers: { "content-type": "text/csv" } });
    expect(response.status).toBe(202);
    const batch = await waitForBatch(send, ((await response.json()) as Batch).id);
    expect(batch.counts.total).toBe(4);
    const json = await allItems(send, batch.id);
    expect(json.map((item) => item.reference)).toEqual(["c-1", "c,2", "c-3", "c-4"]);
    expect(json[3]?.iban).toMatchObject({ valid: true, national_check: "failed" });
    expect(json[3]?.iban?.warning?.code).toBe("national_check_failed");

    const first = await send("GET", `/batches/${batch.id}/items?limit=2`, {
      headers: { accept: "text/csv" },
    });
    expect(first.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(first.headers.get("x-next-cursor")).toBe("2");
    const rest = await send("GET", `/batches/${batch.id}/items?limit=3&cursor=2`, {
      headers: { accept: "text/csv" },
    });
    expect(rest.headers.get("x-next-cursor")).toBeNull();
    // Our own export: 38 columns, a record as long as an item's fields.
    const parseCsv = (text: string) => [...csvRecords(text, { maxFields: 64, maxRecordLength: 4096 })];
    const [header = [], ...rows] = parseCsv(await first.text());
    rows.push(...parseCsv(await rest.text()).slice(1));
    const column = (row: string[], name: string) => row[header.indexOf(name)];
    expect(
      rows.map((row) => [column(row, "index"), column(row, "reference"), column(row, "status")]),
    ).toEqual([
      ["0", "c-1", "done"],
      ["1", "c,2", "done"],
      ["2", "c-3", "done"],
      ["3", "c-4", "done"],
    ]);
    expect(column(rows[0] ?? [], "vat_name")).toBe(json[0]?.vat?.name ?? "");
    expect(column(rows[0] ?? [], "vat_address")).toBe(json[0]?.vat?.address ?? "");
    expect(column(rows[1] ?? [], "iban_bic")).toBe(json[1]?.iban?.bank?.bic ?? "");
    expect(column(rows[2] ?? [], "vat_error_code")).toBe("invalid_format");
    expect([
      column(rows[1] ?? [], "iban_national_check"),
      column(rows[1] ?? [], "iban_warning_code"),
    ]).toEqual([json[1]?.iban?.national_check, ""]);
    expect([
      column(rows[3] ?? [], "iban_national_check"),
      column(rows[3] ?? [], "iban_warning_code"),
    ]).toEqual(["failed", "national_check_failed"]);
    expect(rows.every((row) => row.length === header.length)).toBe(true);
  });
});

describe("one key's batches", () => {
  test("another key's batch and its records are answered as unknown ones: 404", async () => {
    const owner = await keyed();
    const stranger = await keyed();
    // A number nobody asked for yet: its answer is fresh, so it has a record.
    const number = wellFormedVatNumbers(prng(99))();
    const batch = await waitForBatch(
      owner.send,
      (await createBatch(owner.send, { items: [{ vat: number }] })).id,
    );
    for (const [method, path] of [
      ["GET", `/batches/${batch.id}`],
      ["GET", `/batches/${batch.id}/items`],
      ["DELETE", `/batches/${batch.id}`],
      ["GET", `/validations/${batch.id}.0`],
      ["GET", "/batches/bat_000000000000000000000000"],
    ] as const) {
      const response = await stranger.send(method, path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
    }
    expect((await owner.send("GET", `/validations/${batch.id}.0`)).status).toBe(200);
  });

  test("a malformed body is 400 naming the problem, and nothing is created", async () => {
    const { keyId, send } = await keyed();
    const batches = async () =>
      (
        await harness.services.database.rows<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM batches WHERE key_id = ${keyId}`,
        )
      )[0]?.n;
    for (const [body, message] of [
      [{ items: [] }, "the batch has no items"],
      [{ items: [{ vat: "DE811569869" }, {}] }, "item 1: send `vat`, `iban`, or both"],
      [{ items: [{ vat: 1 }] }, "item 0: `vat` must be a string"],
      [{ items: Array(10_001).fill({ vat: "x" }) }, "a batch holds at most 10000 items, got 10001"],
      [
        { items: [{ vat: "x" }], webhook_url: "ftp://example.com" },
        "`webhook_url` must be an http or https URL",
      ],
    ] as const) {
      const response = await send("POST", "/batches", {
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 400,
        body: { error: { code: "invalid_request", message } },
      });
    }
    expect(await batches()).toBe(0);
  });

  test("GET items refuses a cursor or a limit it did not give out", async () => {
    const { send } = await keyed();
    const batch = await createBatch(send, { items: [{ vat: "DE12" }] });
    for (const query of ["cursor=abc", "limit=0", "limit=1001", "limit=x"]) {
      expect((await send("GET", `/batches/${batch.id}/items?${query}`)).status).toBe(400);
    }
    await waitForBatch(send, batch.id);
  });
});

describe("webhooks", () => {
  test("delivered signed per Standard Webhooks, retried with the same id until it is accepted", async () => {
    const { keyId, send } = await keyed();
    const before = receiver.received.length;
    receiver.answerWith([500, 503]);
    const batch = await waitForBatch(
      send,
      (await createBatch(send, { items: [{ vat: "ESB83891812" }], webhook_url: receiver.url })).id,
    );
    const attempts = (await receiver.waitFor(before + 3)).slice(before);
    expect(new Set(attempts.map((attempt) => attempt.headers["webhook-id"])).size).toBe(1);
    const secret = (await harness.services.keyAdmin.webhookSecret(keyId, false))?.webhook_secret ?? "";
    expect(secret).toStartWith("whsec_");
    for (const attempt of attempts) {
      const verified = new Webhook(secret).verify(attempt.body, attempt.headers) as {
        type: string;
        data: Batch;
      };
      expect(verified).toMatchObject({
        type: "batch.completed",
        data: { id: batch.id, status: "completed", counts: batch.counts },
      });
    }
    const delivered = await waitForBatch(send, batch.id, { done: (b) => b.webhook?.last_status === 200 });
    expect(delivered.webhook).toMatchObject({ url: receiver.url, attempts: 3, last_status: 200 });
    expect(delivered.webhook?.last_delivery_at).not.toBeNull();
    // A signature with another secret does not verify: the receiver can tell us from a forger.
    expect(() =>
      new Webhook(`whsec_${btoa("x".repeat(32))}`).verify(
        attempts[0]?.body ?? "",
        attempts[0]?.headers ?? {},
      ),
    ).toThrow();
  });

  test("a rotated secret signs the next deliveries", async () => {
    const { keyId, send } = await keyed();
    const first = (await harness.services.keyAdmin.webhookSecret(keyId, false))?.webhook_secret;
    const rotated = (await harness.services.keyAdmin.webhookSecret(keyId, true))?.webhook_secret;
    expect(rotated).not.toBe(first);
    expect((await harness.services.keyAdmin.webhookSecret(keyId, false))?.webhook_secret).toBe(rotated);
    const before = receiver.received.length;
    await waitForBatch(
      send,
      (await createBatch(send, { items: [{ vat: "DE12" }], webhook_url: receiver.url })).id,
    );
    const [message] = (await receiver.waitFor(before + 1)).slice(before);
    expect(() =>
      new Webhook(rotated ?? "").verify(message?.body ?? "", message?.headers ?? {}),
    ).not.toThrow();
  });
});

describe("validation records", () => {
  test("a fresh /validate answer's record is the proof of the check; a cache hit has none of its own", async () => {
    const { secret, keyId } = await keyed();
    harness.vies.addNumber("NL", "004495445B01", {
      valid: true,
      name: "RECORDED B.V.",
      address: "\nSTRAAT 1\n",
    });
    const fresh = await harness.validate<ValidateResponse>(secret, { vat: "NL004495445B01" });
    const record = await harness.request("GET", `/validations/${fresh.body.request_id}`, { key: secret });
    expect(record.body).toEqual({
      request_id: fresh.body.request_id,
      key_id: keyId,
      vat_number: "NL004495445B01",
      valid: true,
      name: fresh.body.vat?.name,
      address: fresh.body.vat?.address,
      checked_at: fresh.body.vat?.checked_at,
      consultation_number: fresh.body.vat?.consultation_number,
      source: "vies",
      match: null,
    });
    const hit = await harness.validate<ValidateResponse>(secret, { vat: "NL004495445B01" });
    expect(hit.body.vat?.cached).toBe(true);
    expect(
      (await harness.request("GET", `/validations/${hit.body.request_id}`, { key: secret })).status,
    ).toBe(404);
    const stranger = await keyed();
    expect(
      (await harness.request("GET", `/validations/${fresh.body.request_id}`, { key: stranger.secret }))
        .status,
    ).toBe(404);
  });
});

describe("VIES slots", () => {
  test("an interactive request waits at most one call for a slot behind a running batch", async () => {
    const random = prng(11);
    const numbers = wellFormedVatNumbers(random);
    const german = Array.from({ length: 400 }, () => numbers())
      .filter((n) => n.startsWith("DE"))
      .slice(0, 41);
    expect(german).toHaveLength(41);
    harness.vies.setLatency({ DE: 300 });
    const { send, secret } = await keyed();
    const batch = await createBatch(send, { items: german.slice(0, 39).map((vat) => ({ vat })) });
    await waitForBatch(send, batch.id, { done: (b) => b.status === "running" });
    await Bun.sleep(400);
    const started = performance.now();
    const answer = await harness.validate<ValidateResponse>(secret, { vat: german[39] });
    const ms = performance.now() - started;
    await send("DELETE", `/batches/${batch.id}`);
    const aloneStarted = performance.now();
    const alone = await harness.validate<ValidateResponse>(secret, { vat: german[40] });
    const aloneMs = performance.now() - aloneStarted;
    harness.vies.setLatency(0);
    expect([answer.status, alone.status, alone.body.vat?.cached]).toEqual([200, 200, false]);
    // At most one call's time for a slot, then its own call: twice a call alone, measured now, so
    // that a loaded machine stretches both. Without priority it would queue behind the batch's
    // other 30-odd calls on 4 slots: eight calls' time or more.
    expect(ms).toBeLessThan(3 * aloneMs);
  });

  test("batches of different keys share the slots: a small batch does not wait for a large one", async () => {
    const random = prng(12);
    const numbers = wellFormedVatNumbers(random);
    const german = Array.from({ length: 600 }, () => numbers())
      .filter((n) => n.startsWith("DE"))
      .slice(0, 68);
    harness.vies.setLatency({ DE: 200 });
    const large = await keyed();
    const small = await keyed();
    const bigStarted = performance.now();
    const big = await createBatch(large.send, { items: german.slice(0, 60).map((vat) => ({ vat })) });
    await waitForBatch(large.send, big.id, { done: (b) => b.status === "running" });
    const started = performance.now();
    const quick = await waitForBatch(
      small.send,
      (await createBatch(small.send, { items: german.slice(60).map((vat) => ({ vat })) })).id,
    );
    const ms = performance.now() - started;
    const bigNow = await readBatch(large.send, big.id);
    await waitForBatch(large.send, big.id, { timeoutMs: 60_000 });
    const bigMs = performance.now() - bigStarted;
    harness.vies.setLatency(0);
    expect(quick.status).toBe("completed");
    // The large one takes at least 60 / 4 × 200 ms = 3 s. Sharing the slots, the small one's
    // 8 items take about a quarter of that; queued behind it, they would end after it. Measured
    // against the large one's own time, which a loaded machine stretches alike.
    expect(bigNow.status).toBe("running");
    expect(ms).toBeLessThan(bigMs / 2);
  });
});

describe("webhook URLs are an attack surface (SSRF)", () => {
  test("refused at POST /batches unless public https: loopback, 10/8, metadata, IPv6 loopback, a name for loopback", async () => {
    const strict = await startHarness();
    try {
      const key = await strict.createKey("pro");
      const send = sendTo(strict, key.secret);
      for (const [url, reason] of [
        ["http://hooks.example.com/h", "must be an https URL"],
        ["https://127.0.0.1/h", "its host 127.0.0.1 is not a public address"],
        ["https://10.20.30.40/h", "its host 10.20.30.40 is not a public address"],
        ["https://169.254.169.254/latest/meta-data/", "its host 169.254.169.254 is a cloud platform address"],
        ["https://[::1]:8443/h", "its host ::1 is not a public address"],
        ["https://[::ffff:127.0.0.1]/h", "its host ::ffff:7f00:1 is not a public address"],
        // Whichever of its addresses the resolver lists first.
        ["https://localhost/h", /^its host localhost is at (127\.0\.0\.1|::1), not a public address$/],
      ] as const) {
        const response = await send("POST", "/batches", {
          body: JSON.stringify({ items: [{ vat: "DE811569869" }], webhook_url: url }),
          headers: { "content-type": "application/json" },
        });
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect({ url, status: response.status, code: body.error.code }).toEqual({
          url,
          status: 400,
          code: "invalid_request",
        });
        const expected = typeof reason === "string" ? `\`webhook_url\` ${reason}` : null;
        if (expected) expect(body.error.message).toBe(expected);
        else expect(body.error.message.replace("`webhook_url` ", "")).toMatch(reason);
      }
      const [count] = await strict.services.database.rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM batches WHERE key_id = ${key.keyId}`,
      );
      expect(count?.n).toBe(0);
    } finally {
      await strict.close();
    }
  });
});

describe("marketplace subscribers", () => {
  test("are refused on the batch routes: the gateway bills each call by its answer's header", async () => {
    const secret = "gateway-shared-secret-0123456789";
    const gateway = await startHarness({ env: { GATEWAY_PROXY_SECRET: secret } });
    try {
      const headers = {
        "x-gateway-proxy-secret": secret,
        "x-gateway-user": "subscriber-1",
        "content-type": "application/json",
      };
      const created = await gateway.app.handle(
        new Request("http://localhost/batches", {
          method: "POST",
          headers,
          body: JSON.stringify({ items: [{ iban: VALID_IBANS[0] }] }),
        }),
      );
      expect(created.status).toBe(403);
      expect(((await created.json()) as { error: { code: string } }).error.code).toBe("forbidden");
      const read = await gateway.app.handle(
        new Request(`http://localhost/batches/bat_${"0".repeat(24)}`, { headers }),
      );
      expect(read.status).toBe(403);
      const validated = await gateway.app.handle(
        new Request("http://localhost/validate", {
          method: "POST",
          headers,
          body: JSON.stringify({ iban: VALID_IBANS[0] }),
        }),
      );
      expect(validated.status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
