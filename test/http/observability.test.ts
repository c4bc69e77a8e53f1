import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ValidateResponse } from "../../src/http/schemas.ts";
import { checkContract, type Harness, startHarness } from "../support/harness.ts";

const IBAN = "DE89370400440532013000";

let harness: Harness;
let key: { keyId: string; secret: string };

beforeAll(async () => {
  harness = await startHarness({ env: { METRICS_TOKEN: "metrics-secret" } });
  key = await harness.createKey("pro", { quota: 2 });
});
afterAll(() => harness.close());

/** The request lines logged so far; the line is written just after the response is handed over. */
async function requestLines() {
  await new Promise((resolve) => setImmediate(resolve));
  return harness.logs.filter((line) => line.event === "request");
}

async function scrape(): Promise<string> {
  await new Promise((resolve) => setImmediate(resolve));
  const response = await harness.app.handle(
    new Request("http://localhost/metrics", { headers: { authorization: "Bearer metrics-secret" } }),
  );
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

function sample(text: string, name: string, labels: Record<string, string>): number {
  const line = text
    .split("\n")
    .find(
      (l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line ? Number(line.split(" ").at(-1)) : 0;
}

describe("the request log", () => {
  test("one JSON line per request with the outcome of each component; IBANs masked, secrets absent", async () => {
    const before = (await requestLines()).length;
    const response = await harness.validate<ValidateResponse>(key.secret, {
      iban: IBAN,
      vat: "NL854265259B01",
    });
    expect(response.status).toBe(200);
    const lines = (await requestLines()).slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "info",
      request_id: response.body.request_id,
      method: "POST",
      route: "/validate",
      status: 200,
      key_id: key.keyId,
      plan: "pro",
      billable: true,
      iban: { iban: "DE89…3000", country: "DE", outcome: "checked", source: "offline", valid: true },
      vat: { country: "NL", outcome: "fresh", source: "vies", valid: true },
    });
    expect(typeof lines[0]?.duration_ms).toBe("number");
    expect(lines[0]?.upstream).toMatchObject({ attempts: 1, path: "soap" });
    const everything = JSON.stringify(harness.logs);
    expect(everything).not.toContain(IBAN);
    expect(everything).not.toContain(key.secret);
    expect(everything).not.toContain("854265259");
  });

  test("errors are logged with their status and code", async () => {
    const before = (await requestLines()).length;
    await harness.request("GET", "/usage", { key: "vsk_nope" });
    await harness.app.handle(new Request("http://localhost/nowhere/123"));
    const lines = (await requestLines()).slice(before);
    expect(lines[0]).toMatchObject({ route: "/usage", status: 401, error: "unauthorized" });
    expect(lines[1]).toMatchObject({ route: "unmatched", status: 404, error: "not_found" });
  });
});

describe("GET /metrics", () => {
  test("requires the metrics token when one is configured", async () => {
    const response = await harness.app.handle(new Request("http://localhost/metrics"));
    expect(response.status).toBe(401);
    expect(await checkContract("GET /metrics", response)).toMatchObject({ error: { code: "unauthorized" } });
  });

  test("counts requests, latency, billed units, VIES calls, cache results and limit rejections", async () => {
    const before = await scrape();
    await harness.validate(key.secret, { vat: "BE0244142664" });
    await harness.validate(key.secret, { vat: "BE0244142664" });
    await harness.validate(key.secret, { iban: IBAN });
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta("http_requests_total", { route: "/validate", method: "POST", status: "200" })).toBe(2);
    expect(delta("http_requests_total", { route: "/validate", method: "POST", status: "429" })).toBe(1);
    expect(delta("http_request_duration_seconds_count", { route: "/validate", method: "POST" })).toBe(3);
    expect(delta("billed_units_total", { plan: "pro" })).toBe(1);
    expect(
      delta("vat_upstream_calls_total", {
        authority: "vies",
        member_state: "BE",
        outcome: "valid",
        path: "soap",
      }),
    ).toBe(1);
    expect(delta("vat_upstream_call_duration_seconds_count", { authority: "vies", member_state: "BE" })).toBe(
      1,
    );
    expect(delta("vat_answers_total", { result: "fresh" })).toBe(1);
    expect(delta("vat_answers_total", { result: "cache_hit" })).toBe(1);
    expect(delta("vat_cache_lookups_total", { result: "miss" })).toBe(1);
    expect(delta("vat_cache_lookups_total", { result: "hit" })).toBe(1);
    expect(delta("limit_rejections_total", { reason: "quota_exceeded" })).toBe(1);
    expect(after).toContain("process_resident_memory_bytes");
  });

  test("VIES calls are counted by the door that answered, and the log line names it", async () => {
    harness.vies.setBehaviour("LU", { kind: "html", status: 503 }, { door: "soap" });
    try {
      const before = await scrape();
      const linesBefore = (await requestLines()).length;
      const { secret } = await harness.createKey("pro");
      const response = await harness.validate<ValidateResponse>(secret, { vat: "LU20260743" });
      expect(response.body.vat?.valid).toBe(true);
      const after = await scrape();
      const labels = { authority: "vies", member_state: "LU", outcome: "valid" };
      expect(sample(after, "vat_upstream_calls_total", { ...labels, path: "rest" })).toBe(
        sample(before, "vat_upstream_calls_total", { ...labels, path: "rest" }) + 1,
      );
      expect(sample(after, "vat_upstream_calls_total", { ...labels, path: "soap" })).toBe(0);
      const [line] = (await requestLines()).slice(linesBefore);
      expect(line?.upstream).toMatchObject({ attempts: 1, path: "rest" });
    } finally {
      harness.vies.clearBehaviour("LU");
    }
  });

  test("is off when no token is configured: billing and failure figures are nobody's business", async () => {
    const closed = await startHarness();
    try {
      const response = await closed.app.handle(new Request("http://localhost/metrics"));
      expect(response.status).toBe(404);
      expect(await checkContract("GET /metrics", response)).toMatchObject({ error: { code: "not_found" } });
    } finally {
      await closed.close();
    }
  });
});

describe("GET /ready", () => {
  test("ready while the database answers, reporting the cache", async () => {
    const response = await harness.request("GET", "/ready");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "ready", database: "ok" });
  });

  test("a Redis that does not answer keeps the instance ready, reported as unreachable", async () => {
    const degraded = await startHarness({
      env: { REDIS_URL: "redis://127.0.0.1:1", REDIS_TIMEOUT_MS: "200" },
    });
    try {
      const response = await degraded.request("GET", "/ready");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: "ready", database: "ok", cache: "unreachable" });
      const key = await degraded.createKey("pro");
      const answer = await degraded.validate<ValidateResponse>(key.secret, { vat: "NL854265259B01" });
      expect(answer.status).toBe(200);
      expect(answer.body.vat).toMatchObject({ valid: true, cached: false });
    } finally {
      await degraded.close();
    }
  });
});
