import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { apiKeys } from "../../db/schema.ts";
import { hashSecret } from "../../src/accounts/keys.ts";
import type { Usage, ValidateResponse } from "../../src/http/schemas.ts";
import { type Harness, startHarness } from "../support/harness.ts";

const GATEWAY_SECRET = "gateway-shared-secret-0123456789";
const IBAN = { iban: "DE89370400440532013000" };
// Subscribers are unique per run: on a real Postgres, usage outlives the test process.
const run = crypto.randomUUID();

let harness: Harness;
let key: { keyId: string; secret: string };

beforeAll(async () => {
  harness = await startHarness({ env: { GATEWAY_PROXY_SECRET: GATEWAY_SECRET } });
  key = await harness.createKey("basic");
});
afterAll(() => harness.close());

describe("direct keys", () => {
  test("X-API-Key and Authorization: Bearer are both accepted", async () => {
    expect((await harness.validate(key.secret, IBAN)).status).toBe(200);
    const bearer = await harness.request("POST", "/validate", {
      body: IBAN,
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(bearer.status).toBe(200);
    const blankApiKey = await harness.request("POST", "/validate", {
      body: IBAN,
      headers: { "x-api-key": " ", authorization: `Bearer ${key.secret}` },
    });
    expect(blankApiKey.status).toBe(200);
  });

  test.each([
    ["no key", {}],
    ["an empty key", { "x-api-key": "" }],
    ["a malformed key", { "x-api-key": "not-a-key" }],
    ["an unknown well-formed key", { "x-api-key": `vsk_${"A".repeat(43)}` }],
    ["a Basic authorization", { authorization: "Basic dXNlcjpwYXNz" }],
    ["a Bearer without a token", { authorization: "Bearer " }],
  ])("%s → 401 unauthorized, before the body is read", async (_, headers) => {
    for (const path of ["/validate", "/usage"]) {
      const method = path === "/validate" ? "POST" : "GET";
      const response = await harness.request(method, path, {
        headers,
        ...(method === "POST" && { rawBody: "not even json" }),
      });
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: { code: "unauthorized" } });
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });

  test("a revoked key → 403 forbidden on both routes", async () => {
    const doomed = await harness.createKey("free");
    expect((await harness.validate(doomed.secret, IBAN)).status).toBe(200);
    await harness.services.keyAdmin.revoke(doomed.keyId);
    expect((await harness.validate(doomed.secret, IBAN)).body).toMatchObject({
      error: { code: "forbidden" },
    });
    const usage = await harness.request("GET", "/usage", { key: doomed.secret });
    expect(usage.status).toBe(403);
  });

  test("/status, /health and the docs need no key", async () => {
    expect((await harness.request("GET", "/health")).status).toBe(200);
    expect((await harness.app.handle(new Request("http://localhost/swagger/json"))).status).toBe(200);
  });

  test("secrets are never logged", async () => {
    await harness.validate(key.secret, IBAN);
    expect(JSON.stringify(harness.logs)).not.toContain(key.secret);
  });
});

describe("the marketplace gateway", () => {
  const gateway = (headers: Record<string, string>) => ({
    "x-gateway-proxy-secret": GATEWAY_SECRET,
    "x-gateway-host": "example-gateway.test",
    ...headers,
  });

  test("a gateway call is plan rapidapi, has no quota headers and reports billing", async () => {
    const response = await harness.request<ValidateResponse>("POST", "/validate", {
      body: IBAN,
      headers: gateway({
        "x-gateway-user": `subscriber-1-${run}`,
        "x-gateway-key": `forwarded-key-1-${run}`,
      }),
    });
    expect(response.status).toBe(200);
    expect(response.body.usage).toMatchObject({ plan: "rapidapi", limit: null, remaining: null, used: 1 });
    expect(response.headers.get("x-gateway-billing")).toBe("Validations=1");
    expect(response.headers.get("x-quota-limit")).toBeNull();
    expect(response.headers.get("x-ratelimit-limit")).toBe("600");
  });

  test("a request that is not billable reports Validations=0", async () => {
    const response = await harness.request("POST", "/validate", {
      body: { iban: "DE8937040044053201300" },
      headers: gateway({ "x-gateway-user": `subscriber-1-${run}` }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-gateway-billing")).toBe("Validations=0");
    const wrongMethod = await harness.request("GET", "/validate", {
      headers: gateway({ "x-gateway-user": `subscriber-1-${run}` }),
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("x-gateway-billing")).toBe("Validations=0");
  });

  test("without X-Gateway-User the forwarded X-Gateway-Key identifies the subscriber", async () => {
    const headers = gateway({ "x-gateway-key": `forwarded-key-2-${run}` });
    await harness.request("POST", "/validate", { body: IBAN, headers });
    const usage = await harness.request<Usage>("GET", "/usage", { headers });
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({
      plan: "rapidapi",
      monthly_quota: null,
      remaining: null,
      used: 1,
      key_id: null,
    });
    expect(usage.body.requests_this_month).toBe(1);
  });

  test.each([
    ["a wrong secret", { "x-gateway-proxy-secret": "wrong", "x-gateway-user": "s" }],
    ["no secret", { "x-gateway-user": "s", "x-gateway-key": "k" }],
    ["only X-Gateway-Host", { "x-gateway-host": "example-gateway.test" }],
    ["the secret but no subscriber", { "x-gateway-proxy-secret": GATEWAY_SECRET }],
  ])("%s → 401", async (_, headers) => {
    const response = await harness.request("POST", "/validate", { body: IBAN, headers });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: { code: "unauthorized" } });
  });

  test("gateway headers with a valid direct key are still refused: the gateway must prove itself", async () => {
    const response = await harness.request("POST", "/validate", {
      key: key.secret,
      body: IBAN,
      headers: { "x-gateway-key": "k" },
    });
    expect(response.status).toBe(401);
  });

  test("with no secret configured the gateway route is off", async () => {
    const off = await startHarness();
    try {
      const response = await off.request("POST", "/validate", {
        body: IBAN,
        headers: { "x-gateway-proxy-secret": GATEWAY_SECRET, "x-gateway-user": "s" },
      });
      expect(response.status).toBe(401);
    } finally {
      await off.close();
    }
  });
});

describe("forged keys", () => {
  const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const randomKey = (length: number) =>
    `vsk_${Array.from({ length }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join("")}`;

  test("a key issued before checks existed keeps working, and is refused when revoked", async () => {
    const legacy = await startHarness();
    try {
      const secret = randomKey(43);
      const id = `key_legacy${run.slice(0, 8)}`;
      await legacy.services.database.db
        .insert(apiKeys)
        .values({ id, kind: "direct", secretHash: hashSecret(secret), planId: "basic" });
      expect((await legacy.validate(secret, IBAN)).status).toBe(200);
      await legacy.services.keyAdmin.revoke(id);
      expect((await legacy.validate(secret, IBAN)).status).toBe(403);
    } finally {
      await legacy.close();
    }
  });

  test("100,000 random well-formed keys while real keys are used: the real ones stay cached, lookups stay bounded", async () => {
    const flooded = await startHarness({ env: { KEY_CACHE_TTL_MS: "60000" } });
    try {
      const real = [await flooded.createKey("pro"), await flooded.createKey("pro")].map(
        (created) => created.secret,
      );
      // Two keys as the previous version issued them: no check, secret_version 1.
      for (const secret of [randomKey(43), randomKey(43)]) {
        await flooded.services.database.db.insert(apiKeys).values({
          id: `key_${crypto.randomUUID().slice(0, 16)}`,
          kind: "direct",
          secretHash: hashSecret(secret),
          planId: "pro",
        });
        real.push(secret);
      }
      const lookups = async () =>
        (await flooded.services.metrics.keyLookups.get()).values.reduce((sum, value) => sum + value.value, 0);
      const usage = (secret: string) =>
        flooded.app.handle(new Request("http://localhost/usage", { headers: { "x-api-key": secret } }));
      for (const secret of real) expect((await usage(secret)).status).toBe(200);
      const afterFirstUse = await lookups();
      expect(afterFirstUse).toBe(real.length);

      const refused = new Map<number, number>();
      for (let i = 0; i < 100_000; i++) {
        // Both shapes: with a (wrong) check, and without one, as keys issued before checks.
        const status = (await usage(randomKey(i % 2 === 0 ? 49 : 43))).status;
        refused.set(status, (refused.get(status) ?? 0) + 1);
        if (i % 5_000 === 0) for (const secret of real) expect((await usage(secret)).status).toBe(200);
      }
      expect(Object.fromEntries(refused)).toEqual({ 401: 100_000 });
      for (const secret of real) expect((await usage(secret)).status).toBe(200);
      // The real keys were never looked up again, and no forged one was looked up at all.
      expect(await lookups()).toBe(afterFirstUse);
    } finally {
      await flooded.close();
    }
  }, 120_000);
});
