import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Batch } from "../../src/batches/schema.ts";
import type { Usage, ValidateResponse } from "../../src/http/schemas.ts";
import { type Harness, startHarness, type TestResponse } from "../support/harness.ts";

/**
 * `Idempotency-Key` over the app with its real stores (PGlite in memory, or DATABASE_URL and
 * REDIS_URL): replays, refusals, answers that are not kept, leases and expiry.
 */

const IBAN = "DE89370400440532013000";
const VAT = "NL854265259B01";
const GATEWAY_SECRET = "gateway-shared-secret-0123456789";

let harness: Harness;
let run = 0;
const fresh = () => `idem-${crypto.randomUUID()}-${run++}`;

beforeAll(async () => {
  harness = await startHarness({ env: { GATEWAY_PROXY_SECRET: GATEWAY_SECRET } });
});
afterAll(() => harness.close());

function post<T = Record<string, unknown>>(
  key: string,
  idempotencyKey: string | null,
  body: unknown,
  path = "/validate",
): Promise<TestResponse<T>> {
  return harness.request<T>("POST", path, {
    key,
    body,
    headers: idempotencyKey === null ? {} : { "idempotency-key": idempotencyKey },
  });
}

async function usage(key: string): Promise<Usage> {
  return (await harness.request<Usage>("GET", "/usage", { key })).body;
}

describe("a repeat gets the first answer", () => {
  test("same status, body (request_id included) and headers, Idempotent-Replayed, billed once", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    const first = await post<ValidateResponse>(secret, idem, { iban: IBAN });
    expect(first.status).toBe(200);
    expect(first.body.billable).toBe(true);
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    const again = await post<ValidateResponse>(secret, idem, { iban: IBAN });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-request-id")).toBe(first.body.request_id);
    for (const header of ["x-quota-limit", "x-quota-remaining", "x-quota-reset", "content-type"]) {
      expect(again.headers.get(header)).toBe(first.headers.get(header) as string);
    }
    // The per-minute headers are the repeat's own: it counted.
    expect(Number(again.headers.get("x-ratelimit-remaining"))).toBe(
      Number(first.headers.get("x-ratelimit-remaining")) - 1,
    );
    expect(await usage(secret)).toMatchObject({ used: 1, requests_this_month: 1 });
  });

  test("the body compares as data: spacing and the order of fields do not matter", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    const first = await harness.request<ValidateResponse>("POST", "/validate", {
      key: secret,
      rawBody: `{"iban": "${IBAN}", "vat": "${VAT}"}`,
      headers: { "idempotency-key": idem },
    });
    const again = await harness.request<ValidateResponse>("POST", "/validate", {
      key: secret,
      rawBody: `{ "vat":"${VAT}",\n"iban":"${IBAN}" }`,
      headers: { "idempotency-key": idem },
    });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(harness.vies.calls.byCountry.NL ?? 0).toBeGreaterThan(0);
  });

  test("a refusal of the input is what the request came to: it is kept and replayed", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    const first = await post(secret, idem, { vat: "NL12" });
    expect(first.status).toBe(400);
    const again = await post(secret, idem, { vat: "NL12" });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  test("keys are per API key: another key's same Idempotency-Key is a request of its own", async () => {
    const one = await harness.createKey("pro");
    const two = await harness.createKey("pro");
    const idem = fresh();
    const first = await post<ValidateResponse>(one.secret, idem, { iban: IBAN });
    const other = await post<ValidateResponse>(two.secret, idem, { iban: IBAN });
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect(other.body.request_id).not.toBe(first.body.request_id);
    expect(await usage(two.secret)).toMatchObject({ used: 1 });
  });

  test("without the header nothing is kept: each request runs and is billed", async () => {
    const { secret } = await harness.createKey("pro");
    await post(secret, null, { iban: IBAN });
    const second = await post(secret, null, { iban: IBAN });
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(await usage(secret)).toMatchObject({ used: 2 });
  });

  test("a gateway replay reports Validations=0: the marketplace bills it nothing", async () => {
    const idem = fresh();
    const headers = {
      "x-gateway-proxy-secret": GATEWAY_SECRET,
      "x-gateway-host": "example-gateway.test",
      "x-gateway-user": `subscriber-${idem}`,
      "idempotency-key": idem,
    };
    const first = await harness.request("POST", "/validate", { body: { iban: IBAN }, headers });
    expect(first.headers.get("x-gateway-billing")).toBe("Validations=1");
    const again = await harness.request("POST", "/validate", { body: { iban: IBAN }, headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("x-gateway-billing")).toBe("Validations=0");
  });
});

describe("refusals", () => {
  test("the same key with a different body is 422 idempotency_key_reused, and nothing runs", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    await post(secret, idem, { iban: IBAN });
    const reused = await post(secret, idem, { iban: "GB82WEST12345698765432" });
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ error: { code: "idempotency_key_reused" } });
    expect(await usage(secret)).toMatchObject({ used: 1, requests_this_month: 1 });
  });

  test("the same key on another route is 422 too", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    await post(secret, idem, { items: [{ iban: IBAN }] }, "/batches");
    const reused = await post(secret, idem, { items: [{ iban: IBAN }] });
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ error: { code: "idempotency_key_reused" } });
  });

  test.each([
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
    ["a tab", "a\tb"],
    ["a character outside ASCII", "caf\u00e9"],
  ])("a key that is %s is 400 invalid_request, and nothing runs", async (_, value) => {
    const { secret } = await harness.createKey("pro");
    const response = await post(secret, value, { iban: IBAN });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: { code: "invalid_request", message: expect.stringContaining("Idempotency-Key") },
    });
    expect(await usage(secret)).toMatchObject({ used: 0 });
  });

  test("255 printable characters, spaces and symbols included, are a key", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = `a ~!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}`.padEnd(255, "z");
    expect(idem).toHaveLength(255);
    await post(secret, idem, { iban: IBAN });
    const again = await post(secret, idem, { iban: IBAN });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  test("a repeat while the first runs is 409 idempotency_key_in_progress with Retry-After: 1, then the answer", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    harness.vies.setLatency(400);
    try {
      const first = post<ValidateResponse>(secret, idem, { vat: "IE6388047V" });
      await Bun.sleep(150);
      const during = await post(secret, idem, { vat: "IE6388047V" });
      expect(during.status).toBe(409);
      expect(during.body).toMatchObject({ error: { code: "idempotency_key_in_progress" } });
      expect(during.headers.get("retry-after")).toBe("1");
      const answered = await first;
      expect(answered.status).toBe(200);
      const after = await post<ValidateResponse>(secret, idem, { vat: "IE6388047V" });
      expect(after.headers.get("idempotent-replayed")).toBe("true");
      expect(after.body).toEqual(answered.body);
      expect(await usage(secret)).toMatchObject({ used: 1 });
    } finally {
      harness.vies.setLatency(0);
    }
  });
});

describe("answers that say try again are not kept", () => {
  test("a 503 is forgotten: the repeat runs anew and is billed when it is answered", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    harness.vies.setBehaviour("BE", { kind: "fault", fault: "SERVICE_UNAVAILABLE" });
    try {
      const down = await post(secret, idem, { vat: "BE0244142664" });
      expect(down.status).toBe(503);
    } finally {
      harness.vies.clearBehaviour("BE");
    }
    const again = await post<ValidateResponse>(secret, idem, { vat: "BE0244142664" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.billable).toBe(true);
  });

  test("a 429 quota_exceeded is forgotten: after the reset, the repeat runs", async () => {
    const { secret } = await harness.createKey("free", { quota: 1 });
    await post(secret, null, { iban: IBAN });
    const idem = fresh();
    const refused = await post(secret, idem, { iban: IBAN });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: "quota_exceeded" } });
    // The first of the next month; the clock only moves forward, and nothing here needs it back.
    const now = new Date(harness.clock.now());
    harness.clock.advance(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime());
    const again = await post<ValidateResponse>(secret, idem, { iban: IBAN });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.billable).toBe(true);
  });

  test("a 429 rate_limited comes before the key is looked at: the repeat runs once the minute allows", async () => {
    const { secret } = await harness.createKey("free", { rate: 1 });
    await post(secret, null, { iban: IBAN });
    const idem = fresh();
    const limited = await post(secret, idem, { iban: IBAN });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: { code: "rate_limited" } });
    harness.clock.advance(60_000);
    const again = await post(secret, idem, { iban: IBAN });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("leases and expiry", () => {
  const rows = () => harness.services.database.rows;

  test("a request that died while holding its key does not block it: once its lease ends, a repeat runs", async () => {
    const { secret, keyId } = await harness.createKey("pro");
    const idem = fresh();
    const store = harness.services.idempotency;
    const claimed = await store.claim({ keyId, key: idem }, "a crashed request", crypto.randomUUID());
    expect(claimed.kind).toBe("taken");
    const blocked = await post(secret, idem, { iban: IBAN });
    expect(blocked.status).toBe(422);
    await rows()(sql`UPDATE idempotency_keys SET lease_until = now() - interval '1 second'
      WHERE key_id = ${keyId} AND idempotency_key = ${idem}`);
    // A lapsed lease is taken over only by the same request: another one is still a misuse of the key.
    expect((await post(secret, idem, { iban: IBAN })).status).toBe(422);
  });

  test("the same request takes over a lapsed lease and runs, once", async () => {
    const { secret, keyId } = await harness.createKey("pro");
    const idem = fresh();
    const first = await post<ValidateResponse>(secret, idem, { iban: IBAN });
    // As if the first had died before its answer was kept: running, lease lapsed.
    await rows()(sql`UPDATE idempotency_keys SET status = NULL, body = NULL, headers = NULL,
      lease_token = 'dead', lease_until = now() - interval '1 second'
      WHERE key_id = ${keyId} AND idempotency_key = ${idem}`);
    const again = await post<ValidateResponse>(secret, idem, { iban: IBAN });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.request_id).not.toBe(first.body.request_id);
    const third = await post<ValidateResponse>(secret, idem, { iban: IBAN });
    expect(third.body).toEqual(again.body);
  });

  test("a live lease is respected: 409 until it lapses", async () => {
    const { secret, keyId } = await harness.createKey("pro");
    const idem = fresh();
    const first = await post<ValidateResponse>(secret, idem, { iban: IBAN });
    await rows()(sql`UPDATE idempotency_keys SET status = NULL, body = NULL, headers = NULL,
      lease_token = 'alive', lease_until = now() + interval '1 minute'
      WHERE key_id = ${keyId} AND idempotency_key = ${idem}`);
    expect((await post(secret, idem, { iban: IBAN })).status).toBe(409);
    expect(first.status).toBe(200);
  });

  test("an answer past IDEMPOTENCY_TTL_HOURS is gone: the key runs anew, even for another body, and the sweep deletes it", async () => {
    const { secret, keyId } = await harness.createKey("pro");
    const idem = fresh();
    await post(secret, idem, { iban: IBAN });
    const [kept] = await rows()<{ hours: number }>(sql`
      SELECT round(extract(epoch FROM expires_at - created_at) / 3600)::int AS hours
      FROM idempotency_keys WHERE key_id = ${keyId} AND idempotency_key = ${idem}`);
    expect(kept?.hours).toBe(24);
    await rows()(sql`UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
      WHERE key_id = ${keyId} AND idempotency_key = ${idem}`);
    const other = await post(secret, idem, { iban: "GB82WEST12345698765432" });
    expect(other.status).toBe(200);
    expect(other.headers.get("idempotent-replayed")).toBeNull();

    await rows()(sql`UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
      WHERE key_id = ${keyId} AND idempotency_key = ${idem}`);
    await harness.services.idempotency.sweep();
    const left = await rows()(sql`SELECT 1 FROM idempotency_keys WHERE key_id = ${keyId}`);
    expect(left).toHaveLength(0);
  });
});

describe("POST /batches", () => {
  test("a repeat gets the same batch (202, Location), and only one batch is created", async () => {
    const { secret, keyId } = await harness.createKey("pro");
    const idem = fresh();
    const body = { items: [{ iban: IBAN }, { vat: VAT, reference: "r1" }] };
    const first = await post<Batch>(secret, idem, body, "/batches");
    expect(first.status).toBe(202);
    const again = await post<Batch>(secret, idem, body, "/batches");
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("location")).toBe(`/batches/${first.body.id}`);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const batches = await harness.services.database.rows(sql`SELECT id FROM batches WHERE key_id = ${keyId}`);
    expect(batches).toHaveLength(1);
  });

  test("a CSV body compares by the items it parses to: the same CSV again is a repeat, another is 422", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    const send = (csv: string) =>
      harness.request<Batch>("POST", "/batches", {
        key: secret,
        rawBody: csv,
        headers: { "content-type": "text/csv", "idempotency-key": idem },
      });
    const first = await send(`vat,reference\n${VAT},r1\n`);
    expect(first.status).toBe(202);
    const crlf = await send(`vat,reference\r\n${VAT},r1\r\n`);
    expect(crlf.headers.get("idempotent-replayed")).toBe("true");
    expect(crlf.body.id).toBe(first.body.id);
    const other = await send(`vat,reference\n${VAT},r2\n`);
    expect(other.status).toBe(422);
  });
});

describe("the monitor routes", () => {
  test("POST /monitors: a repeat gets the first answer (201, Location), not the later 200 of a number already watched", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    const body = { vat: VAT, reference: "customer-1" };
    const first = await post<{ id: string }>(secret, idem, body, "/monitors");
    expect(first.status).toBe(201);
    const again = await post<{ id: string }>(secret, idem, body, "/monitors");
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("location")).toBe(`/monitors/${first.body.id}`);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const other = await post(secret, idem, { vat: VAT, reference: "customer-2" }, "/monitors");
    expect(other.status).toBe(422);
  });

  test("POST /monitors/{id}/check: a repeat gets the first 202; the same key on another monitor is 422", async () => {
    const { secret } = await harness.createKey("pro");
    const one = await post<{ id: string }>(secret, null, { vat: VAT }, "/monitors");
    const two = await post<{ id: string }>(secret, null, { vat: "BE0244142664" }, "/monitors");
    const idem = fresh();
    const first = await post(secret, idem, undefined, `/monitors/${one.body.id}/check`);
    expect(first.status).toBe(202);
    const again = await post(secret, idem, undefined, `/monitors/${one.body.id}/check`);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const elsewhere = await post(secret, idem, undefined, `/monitors/${two.body.id}/check`);
    expect(elsewhere.status).toBe(422);
  });
});

describe("many at once", () => {
  test("50 requests with one key at once: one runs and is billed, the others get 409 and then its answer", async () => {
    const { secret } = await harness.createKey("pro");
    const idem = fresh();
    const attempt = async (): Promise<TestResponse<ValidateResponse>> => {
      for (;;) {
        const response = await post<ValidateResponse>(secret, idem, { vat: "LU20260743", iban: IBAN });
        if (response.status !== 409) return response;
        await Bun.sleep(Number(response.headers.get("retry-after")) * 1000);
      }
    };
    const answers = await Promise.all(Array.from({ length: 50 }, attempt));
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    const ran = answers.filter((answer) => answer.headers.get("idempotent-replayed") === null);
    expect(ran).toHaveLength(1);
    for (const answer of answers) expect(answer.body).toEqual(ran[0]?.body as ValidateResponse);
    expect(await usage(secret)).toMatchObject({ used: 1, requests_this_month: 1 });
  });
});
