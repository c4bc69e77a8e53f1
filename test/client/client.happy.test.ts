import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  createVatIbanClient,
  csvBody,
  type Middleware,
  retrySafely,
  type VatIbanClient,
} from "@vat-iban/client";
import { verifyWebhook, WebhookVerificationError } from "@vat-iban/client/webhooks";
import { IBAN } from "../support/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { type ClientService, SERVICE_START_MS, startClientService } from "./client-service.ts";

/**
 * The typed client against a real service (embedded default, VIES fake): every route of the
 * OpenAPI document called through it, a batch's webhook verified with the key's secret, and a
 * request retried after a 503 with one Idempotency-Key on both attempts.
 */

const VAT = "NL854265259B01";

let service: ClientService;
let receiver: WebhookReceiver;
let api: VatIbanClient;
let keyId: string;
/** `METHOD /path/{param}` of every call made through the clients of this file. */
const called = new Set<string>();
const recordCalls: Middleware = {
  onRequest({ request, schemaPath }) {
    called.add(`${request.method} ${schemaPath}`);
  },
};

beforeAll(async () => {
  service = await startClientService();
  receiver = startWebhookReceiver();
  const key = await service.key("pro");
  keyId = key.key_id;
  api = createVatIbanClient({ baseUrl: service.server.url, apiKey: key.api_key });
  api.use(recordCalls);
}, SERVICE_START_MS);
afterAll(async () => {
  await receiver?.stop();
  await service?.stop();
});

async function waitForEnd(id: string) {
  for (;;) {
    const { data } = await api.GET("/batches/{id}", { params: { path: { id } } });
    if (!data) throw new Error(`GET /batches/${id} gave no batch`);
    if (data.status === "completed" || data.status === "cancelled") return data;
    await Bun.sleep(50);
  }
}

describe("every route through the client", () => {
  test("the routes that need no key", async () => {
    const keyless = createVatIbanClient({ baseUrl: service.server.url });
    keyless.use(recordCalls);
    const health = await keyless.GET("/health");
    expect(health.data?.status).toBe("ok");
    const status = await api.GET("/status");
    expect(status.response.status).toBe(200);
    expect(status.data).toBeDefined();
  });

  test("POST /validate, then the record of its VAT check at GET /validations/{request_id}", async () => {
    const { data, error } = await api.POST("/validate", { body: { vat: VAT, iban: IBAN } });
    expect(error).toBeUndefined();
    expect(data?.vat).toMatchObject({ valid: true, vat_number: VAT, name: "GITHUB B.V.", source: "vies" });
    expect(data?.iban).toMatchObject({ valid: true, iban: IBAN });
    const record = await api.GET("/validations/{request_id}", {
      params: { path: { request_id: data?.request_id ?? "" } },
    });
    expect(record.data).toMatchObject({ request_id: data?.request_id, vat_number: VAT, valid: true });
  });

  test("POST /iban/build: a domestic account number's IBAN, billed", async () => {
    const { data, error } = await api.POST("/iban/build", {
      body: { country_code: "DE", bank_code: "37040044", account_number: "532013000" },
    });
    expect(error).toBeUndefined();
    expect(data?.iban).toMatchObject({ valid: true, iban: IBAN, national_check: "passed" });
    expect(data?.billable).toBe(true);
  });

  test("GET /usage", async () => {
    const { data } = await api.GET("/usage");
    // One unit for the VAT number and IBAN of /validate, one for the IBAN built.
    expect(data).toMatchObject({ plan: "pro", key_id: keyId, used: 2 });
  });

  test("headers of the caller's own, given as a Headers object, go with the key", async () => {
    const traced = createVatIbanClient({
      baseUrl: service.server.url,
      apiKey: (await service.key("pro")).api_key,
      headers: new Headers({ "x-request-id": "trace-42" }),
    });
    const { data, response } = await traced.GET("/usage");
    expect(data?.plan).toBe("pro");
    expect(response.headers.get("x-request-id")).toBe("trace-42");
  });

  test("a batch in JSON: created, read, paged (JSON and CSV), and its signed webhook verified", async () => {
    const created = await api.POST("/batches", {
      body: {
        items: [
          { vat: VAT, reference: "a" },
          { iban: IBAN, reference: "b" },
        ],
        webhook_url: receiver.url,
      },
    });
    expect(created.response.status).toBe(202);
    const batch = await waitForEnd(created.data?.id ?? "");
    expect(batch).toMatchObject({ status: "completed", counts: { total: 2, done: 2, valid: 2 } });

    const page = await api.GET("/batches/{id}/items", {
      params: { path: { id: batch.id }, query: { limit: "1" } },
    });
    expect(page.data?.items.map((item) => item.reference)).toEqual(["a"]);
    const csv = await api.GET("/batches/{id}/items", {
      params: { path: { id: batch.id }, query: { cursor: page.data?.next_cursor ?? undefined } },
      headers: { accept: "text/csv" },
      parseAs: "text",
    });
    expect(csv.data?.split("\r\n")[1]).toStartWith("1,b,done,true,");

    const [delivery] = await receiver.waitFor(1);
    if (!delivery) throw new Error("no webhook arrived");
    const secret = await service.webhookSecret(keyId);
    const event = verifyWebhook(secret, delivery.body, delivery.headers);
    // The message is the batch as its completion queued it, before any attempt to deliver it;
    // the batch read above may already show this delivery's attempt.
    expect(event).toEqual({
      type: "batch.completed",
      data: {
        ...batch,
        webhook: { url: receiver.url, attempts: 0, last_delivery_at: null, last_status: null },
      },
    });
    const forged = delivery.body.replace("completed", "cancelled");
    expect(() => verifyWebhook(secret, forged, delivery.headers)).toThrow(WebhookVerificationError);
  });

  test("a batch in CSV, cancelled", async () => {
    service.vies.setBehaviour("*", { kind: "hang" });
    try {
      const created = await api.POST("/batches", csvBody("vat,reference\r\nBE0244142664,x\r\n"));
      expect(created.response.status).toBe(202);
      const cancelled = await api.DELETE("/batches/{id}", {
        params: { path: { id: created.data?.id ?? "" } },
      });
      expect(cancelled.data?.status).toBe("cancelled");
    } finally {
      service.vies.clearBehaviour("*");
    }
  });

  test("monitors: watched (one, a list, CSV), listed, read, changed, checked now, their events read, deleted", async () => {
    const one = await api.POST("/monitors", { body: { vat: "DE811569869", reference: "c-1" } });
    expect(one.response.status).toBe(201);
    const monitor = one.data && "id" in one.data ? one.data : undefined;
    if (!monitor) throw new Error(`POST /monitors gave no monitor: ${JSON.stringify(one.data)}`);
    const list = await api.POST("/monitors", {
      body: { items: [{ vat: "DE811569869" }, { vat: "ESB83891812", interval_days: 7 }] },
    });
    expect(list.data && "created" in list.data ? list.data.created : null).toBe(1);
    const csv = await api.POST("/monitors", csvBody("vat,reference\r\nDK13585628,c-3\r\n"));
    expect(csv.response.status).toBe(201);
    const page = await api.GET("/monitors", { params: { query: { status: "active", limit: "2" } } });
    expect(page.data?.monitors.map((item) => item.vat_number)).toEqual(["DE811569869", "ESB83891812"]);
    const read = await api.GET("/monitors/{id}", { params: { path: { id: monitor.id } } });
    expect(read.data?.reference).toBe("c-1");
    const paused = await api.PATCH("/monitors/{id}", {
      params: { path: { id: monitor.id } },
      body: { status: "paused", interval_days: 7 },
    });
    expect(paused.data).toMatchObject({ status: "paused", interval_days: 7, next_check_at: null });
    const checked = await api.POST("/monitors/{id}/check", { params: { path: { id: monitor.id } } });
    expect(checked.response.status).toBe(202);
    const events = await api.GET("/monitors/{id}/events", { params: { path: { id: monitor.id } } });
    expect(events.data?.next_cursor).toBeNull();
    const deleted = await api.DELETE("/monitors/{id}", { params: { path: { id: monitor.id } } });
    expect(deleted.data?.id).toBe(monitor.id);
  });

  test("has called every operation of the OpenAPI document", async () => {
    const document = (await (await fetch(`${service.server.url}/swagger/json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((operation) => !called.has(operation))).toEqual([]);
  });
});

describe("retrySafely", () => {
  test("a 503 is retried after its Retry-After with the same Idempotency-Key, and the answer of the retry kept", async () => {
    const sent: (string | null)[] = [];
    const retryAfter: (string | null)[] = [];
    const delays: number[] = [];
    const recording = createVatIbanClient({
      baseUrl: service.server.url,
      apiKey: (await service.key("pro")).api_key,
      fetch: async (request) => {
        sent.push(request.headers.get("idempotency-key"));
        const response = await fetch(request);
        retryAfter.push(response.headers.get("retry-after"));
        return response;
      },
    });
    service.vies.setBehaviour("LU", { kind: "fault", fault: "MS_UNAVAILABLE" });
    const { data, response } = await retrySafely(
      (headers) => recording.POST("/validate", { body: { vat: "LU20260743" }, headers }),
      {
        sleep: async (ms) => {
          delays.push(ms);
          service.vies.clearBehaviour("LU");
        },
      },
    );
    expect(response.status).toBe(200);
    expect(data?.vat).toMatchObject({ valid: true, name: "AMAZON EU SARL" });
    expect(sent.length).toBe(2);
    expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).toBe(sent[0]);
    expect(delays).toEqual([Number(retryAfter[0]) * 1000]);
    expect(delays[0]).toBeGreaterThan(0);
  });

  test("an answer lost on the way is retried with the same key: the kept answer comes back, billed once", async () => {
    const key = await service.key("pro");
    let lost = 0;
    const losing = createVatIbanClient({
      baseUrl: service.server.url,
      apiKey: key.api_key,
      fetch: async (request) => {
        const response = await fetch(request);
        if (lost++ > 0) return response;
        // The service answered; the answer never reaches the caller, as when a connection breaks.
        await response.arrayBuffer();
        throw new TypeError("the connection was reset");
      },
    });
    const { data, response } = await retrySafely(
      (headers) => losing.POST("/validate", { body: { iban: IBAN }, headers }),
      { sleep: async () => {} },
    );
    expect(lost).toBe(2);
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    expect(data?.billable).toBe(true);
    const usage = await createVatIbanClient({ baseUrl: service.server.url, apiKey: key.api_key }).GET(
      "/usage",
    );
    expect(usage.data).toMatchObject({ used: 1, requests_this_month: 1 });
  });

  test("a repeat while the first runs gets 409 and waits its Retry-After: both end with one answer", async () => {
    const client = createVatIbanClient({
      baseUrl: service.server.url,
      apiKey: (await service.key("pro")).api_key,
    });
    const idempotencyKey = crypto.randomUUID();
    const delays: number[] = [];
    service.vies.setLatency(600);
    try {
      const send = (headers: { "Idempotency-Key": string }) =>
        client.POST("/validate", { body: { vat: "IE6388047V" }, headers });
      const first = retrySafely(send, { idempotencyKey });
      await Bun.sleep(200);
      const second = await retrySafely(send, {
        idempotencyKey,
        sleep: async (ms) => {
          delays.push(ms);
          await Bun.sleep(ms);
        },
      });
      expect(delays).toEqual([1000]);
      expect(second.response.headers.get("idempotent-replayed")).toBe("true");
      expect(second.data).toEqual((await first).data as NonNullable<typeof second.data>);
    } finally {
      service.vies.setLatency(0);
    }
  });
});
