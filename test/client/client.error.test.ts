import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from "bun:test";
import { createVatIbanClient, type ErrorResponse, retrySafely } from "@vat-iban/client";
import { IBAN } from "../support/service.ts";
import { type ClientService, SERVICE_START_MS, startClientService } from "./client-service.ts";

/**
 * The API's refusals through the typed client: each error body typed as the API's
 * ErrorResponse, and the refusals that retrying cannot mend answered at once by retrySafely.
 */

let service: ClientService;
beforeAll(async () => {
  service = await startClientService();
}, SERVICE_START_MS);
afterAll(() => service?.stop());

describe("errors through the client", () => {
  test("a malformed VAT number: 400 with the API's error, typed as its ErrorResponse", async () => {
    const api = createVatIbanClient({
      baseUrl: service.server.url,
      apiKey: (await service.key("pro")).api_key,
    });
    const { data, error, response } = await api.POST("/validate", { body: { vat: "NL123" } });
    expectTypeOf(error).toEqualTypeOf<ErrorResponse | undefined>();
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error?.error.code).toBe("invalid_format");
    expect(error?.error.message).toBeString();
  });

  test("no key, and a wrong key: 401 unauthorized", async () => {
    for (const apiKey of [undefined, "vsk_not_a_key"]) {
      const { error, response } = await createVatIbanClient({ baseUrl: service.server.url, apiKey }).GET(
        "/usage",
      );
      expect(response.status).toBe(401);
      expect(error?.error.code).toBe("unauthorized");
    }
  });

  test("an unknown batch: 404 not_found", async () => {
    const api = createVatIbanClient({
      baseUrl: service.server.url,
      apiKey: (await service.key("pro")).api_key,
    });
    const { error, response } = await api.GET("/batches/{id}", { params: { path: { id: "bat_nope" } } });
    expectTypeOf(error).toEqualTypeOf<ErrorResponse | undefined>();
    expect(response.status).toBe(404);
    expect(error?.error.code).toBe("not_found");
  });
});

describe("retrySafely does not retry what retrying cannot mend", () => {
  test("429 quota_exceeded is answered at once", async () => {
    const api = createVatIbanClient({
      baseUrl: service.server.url,
      apiKey: (await service.key("free", 1)).api_key,
    });
    expect((await api.POST("/validate", { body: { iban: IBAN } })).response.status).toBe(200);
    let attempts = 0;
    const slept: number[] = [];
    const { error, response } = await retrySafely(
      (headers) => {
        attempts += 1;
        return api.POST("/validate", { body: { iban: IBAN }, headers });
      },
      { sleep: async (ms) => void slept.push(ms) },
    );
    expect(response.status).toBe(429);
    expect(error?.error.code).toBe("quota_exceeded");
    expect({ attempts, slept }).toEqual({ attempts: 1, slept: [] });
  });

  test("400 is answered at once", async () => {
    const api = createVatIbanClient({
      baseUrl: service.server.url,
      apiKey: (await service.key("pro")).api_key,
    });
    let attempts = 0;
    const { response } = await retrySafely((headers) => {
      attempts += 1;
      return api.POST("/validate", { body: { vat: "NL123" }, headers });
    });
    expect({ status: response.status, attempts }).toEqual({ status: 400, attempts: 1 });
  });

  test("422 idempotency_key_reused is not retried: the caller reused a key for another request", async () => {
    const api = createVatIbanClient({
      baseUrl: service.server.url,
      apiKey: (await service.key("pro")).api_key,
    });
    const idempotencyKey = crypto.randomUUID();
    await retrySafely((headers) => api.POST("/validate", { body: { iban: IBAN }, headers }), {
      idempotencyKey,
    });
    let attempts = 0;
    const { response, error } = await retrySafely(
      (headers) => {
        attempts += 1;
        return api.POST("/validate", { body: { iban: "GB82WEST12345698765432" }, headers });
      },
      { idempotencyKey, sleep: async () => {} },
    );
    expect({ status: response.status, attempts, code: error?.error.code }).toEqual({
      status: 422,
      attempts: 1,
      code: "idempotency_key_reused",
    });
  });

  test("a connection that fails is tried again with the same key, and the last failure thrown", async () => {
    const keys: (string | null)[] = [];
    const api = createVatIbanClient({
      baseUrl: service.server.url,
      fetch: async (request) => {
        keys.push(request.headers.get("idempotency-key"));
        throw new TypeError("connection reset");
      },
    });
    const attempt = retrySafely((headers) => api.GET("/health", { headers }), {
      attempts: 3,
      sleep: async () => {},
    });
    await expect(attempt).rejects.toThrow("connection reset");
    expect(keys.length).toBe(3);
    expect(new Set(keys).size).toBe(1);
  });
});
