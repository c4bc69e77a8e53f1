import { afterEach, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { createLogger } from "../../src/kernel/log.ts";
import type { KeyValueStore } from "../../src/store/kv.ts";
import { createMemoryStore } from "../../src/store/memory.ts";
import { createRedisStore } from "../../src/store/redis.ts";
import { createStatusService, StatusSchema, type StatusServiceOptions } from "../../src/vat/status.ts";
import { createViesStatusClient } from "../../src/vat/vies/status.ts";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { SLACK_MS } from "../store/timing.ts";
import { closedPort } from "../store/unreachable.ts";
import { manualClock } from "../support/manual-clock.ts";

const fakes: ViesFake[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.stop()));
});

async function harness(options: Partial<StatusServiceOptions> = {}) {
  const fake = await startViesFake();
  fakes.push(fake);
  const clock = manualClock();
  const store = createMemoryStore({ maxEntries: 100, clock });
  const lines: string[] = [];
  const make = (overrides: Partial<StatusServiceOptions> = {}) =>
    createStatusService({
      client: createViesStatusClient({ baseUrl: fake.baseUrl }),
      store,
      clock,
      log: createLogger("debug", (line) => lines.push(line)),
      ...options,
      ...overrides,
    });
  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { fake, clock, store, status: make(), make, logged };
}

/** Lets a background refresh run to its end. */
const settle = () => Bun.sleep(100);

describe("VIES status: the body", () => {
  test("overall and per-country availability, in the API's terms, checked now", async () => {
    const { fake, clock, status } = await harness();
    fake.setStatus({ kind: "json", countries: { DE: "Unavailable", MT: "Monitoring Disabled" } });
    const outcome = await status.get();
    if (!outcome.ok) throw new Error(`status failed: ${outcome.detail}`);
    const { body } = outcome;
    expect(Value.Check(StatusSchema, { ...body, registers: [] })).toBe(true);
    expect([body.available, body.checked_at, body.cached]).toEqual([
      true,
      new Date(clock.now()).toISOString(),
      false,
    ]);
    expect(body.countries).toHaveLength(28);
    const byCode = Object.fromEntries(body.countries.map((country) => [country.vies_code, country]));
    expect(byCode.DE).toEqual({
      country_code: "DE",
      vies_code: "DE",
      availability: "unavailable",
      raw: "Unavailable",
    });
    expect(byCode.MT).toEqual({
      country_code: "MT",
      vies_code: "MT",
      availability: "unknown",
      raw: "Monitoring Disabled",
    });
    expect(byCode.EL).toEqual({
      country_code: "GR",
      vies_code: "EL",
      availability: "available",
      raw: "Available",
    });
    expect(byCode.XI).toEqual({
      country_code: "GB",
      vies_code: "XI",
      availability: "available",
      raw: "Available",
    });
  });

  test("VIES reporting itself down, and availability values it never documented", async () => {
    const { fake, status } = await harness();
    fake.setStatus({ kind: "json", vowAvailable: false, countries: { FR: "Maintenance" } });
    const outcome = await status.get();
    if (!outcome.ok) throw new Error(`status failed: ${outcome.detail}`);
    expect(outcome.body.available).toBe(false);
    expect(outcome.body.countries.find((country) => country.vies_code === "FR")).toMatchObject({
      availability: "unknown",
      raw: "Maintenance",
    });
  });
});

describe("VIES status: caching", () => {
  test("two reads within the TTL make one call; the second is cached with the same checked_at", async () => {
    const { fake, clock, status } = await harness();
    const first = await status.get();
    clock.advance(59_999);
    const second = await status.get();
    expect(fake.calls.status).toBe(1);
    if (!first.ok || !second.ok) throw new Error("status failed");
    expect({ ...second.body, cached: false }).toEqual(first.body);
    expect(second.body.cached).toBe(true);
  });

  test("after the TTL VIES is asked again", async () => {
    const { fake, clock, status } = await harness();
    await status.get();
    clock.advance(60_000);
    fake.setStatus({ kind: "json", countries: { DE: "Unavailable" } });
    const renewed = await status.get();
    expect(fake.calls.status).toBe(2);
    if (!renewed.ok) throw new Error("status failed");
    expect([renewed.body.cached, renewed.body.checked_at]).toEqual([
      false,
      new Date(clock.now()).toISOString(),
    ]);
    expect(renewed.body.countries.find((country) => country.vies_code === "DE")?.availability).toBe(
      "unavailable",
    );
  });

  test("the TTL is configurable", async () => {
    const { fake, clock, status } = await harness({ ttlSeconds: 5 });
    await status.get();
    clock.advance(5_000);
    await status.get();
    expect(fake.calls.status).toBe(2);
  });

  test("concurrent reads share one call", async () => {
    const { fake, status } = await harness();
    fake.setLatency(100);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => status.get()));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(fake.calls.status).toBe(1);
  });

  test("the cached status is shared with other instances through the store", async () => {
    const { fake, status, make } = await harness();
    await status.get();
    const other = await make().get();
    expect(fake.calls.status).toBe(1);
    expect(other.ok && other.body.cached).toBe(true);
  });

  test("a store that is down only costs the sharing", async () => {
    const store: KeyValueStore = createRedisStore({
      url: `redis://127.0.0.1:${closedPort()}`,
      timeoutMs: 5_000,
    });
    const { fake, status, logged } = await harness({ store });
    expect((await status.get()).ok).toBe(true);
    expect(fake.calls.status).toBe(1);
    expect(logged().filter((line) => line.event === "vies_status_store_fault").length).toBeGreaterThan(0);
  });
});

describe("VIES status: an unreachable status endpoint", () => {
  for (const [name, behaviour, detail] of [
    ["an HTML 503 page", { kind: "html", status: 503 }, "HTTP_503"],
    ["actionSucceed false", { kind: "actionFailed", error: "SERVICE_UNAVAILABLE" }, "SERVICE_UNAVAILABLE"],
    [
      "a body that is not the status",
      { kind: "body", status: 200, contentType: "application/json", body: "{}" },
      "UNPARSEABLE",
    ],
  ] as const) {
    test(`${name} → ok false (${detail})`, async () => {
      const { fake, status } = await harness();
      fake.setStatus(behaviour);
      expect(await status.get()).toEqual({ ok: false, detail });
    });
  }

  test("nobody listening → ok false, NETWORK", async () => {
    const clock = manualClock();
    const status = createStatusService({
      client: createViesStatusClient({ baseUrl: `http://127.0.0.1:${closedPort()}` }),
      store: createMemoryStore({ maxEntries: 10, clock }),
      clock,
      log: createLogger("silent"),
    });
    expect(await status.get()).toEqual({ ok: false, detail: "NETWORK" });
  });

  test("a hanging endpoint → ok false within the timeout", async () => {
    const { fake, status } = await harness({ timeoutMs: 200 });
    fake.setStatus({ kind: "hang" });
    const started = performance.now();
    expect(await status.get()).toEqual({ ok: false, detail: "CLIENT_TIMEOUT" });
    expect(performance.now() - started).toBeLessThan(200 + SLACK_MS);
  });

  test("an expired status is not served when VIES cannot be reached", async () => {
    const { fake, clock, status } = await harness();
    await status.get();
    clock.advance(60_000);
    fake.setStatus({ kind: "html", status: 502 });
    expect(await status.get()).toEqual({ ok: false, detail: "HTTP_502" });
  });

  test("a failure is remembered briefly, so an unreachable endpoint is not hammered", async () => {
    const { fake, clock, status, logged } = await harness({ failureTtlSeconds: 10 });
    fake.setStatus({ kind: "html", status: 503 });
    await status.get();
    fake.setStatus({ kind: "json" });
    clock.advance(9_999);
    expect(await status.get()).toEqual({ ok: false, detail: "HTTP_503" });
    expect(fake.calls.status).toBe(1);
    clock.advance(1);
    expect((await status.get()).ok).toBe(true);
    expect(fake.calls.status).toBe(2);
    expect(logged().filter((line) => line.event === "vies_status_unreachable")).toHaveLength(1);
  });

  test("a failure is never remembered longer than the status TTL", async () => {
    const { fake, clock, status } = await harness({ ttlSeconds: 1, failureTtlSeconds: 10 });
    fake.setStatus({ kind: "html", status: 503 });
    await status.get();
    fake.setStatus({ kind: "json" });
    clock.advance(999);
    expect(await status.get()).toEqual({ ok: false, detail: "HTTP_503" });
    clock.advance(1);
    expect((await status.get()).ok).toBe(true);
    expect(fake.calls.status).toBe(2);
  });
});

describe("VIES status: the VAT service's accessor", () => {
  test("answers from memory: unavailable only for a member state reported Unavailable", async () => {
    const { fake, status } = await harness();
    fake.setStatus({ kind: "json", countries: { DE: "Unavailable", MT: "Monitoring Disabled" } });
    await status.get();
    expect([status.reportedOutage("DE"), status.reportedOutage("MT"), status.reportedOutage("NL")]).toEqual([
      { code: "member_state_unavailable", detail: "STATUS_UNAVAILABLE" },
      null,
      null,
    ]);
    expect(status.reportedOutage("GB")).toBeNull();
    expect(fake.calls.status).toBe(1);
  });

  test("VIES reporting itself down is an outage for every member state", async () => {
    const { fake, status } = await harness();
    fake.setStatus({ kind: "json", vowAvailable: false, countries: { DE: "Available" } });
    await status.get();
    for (const code of ["DE", "NL", "EL"]) {
      expect(status.reportedOutage(code)).toEqual({
        code: "service_unavailable",
        detail: "STATUS_VIES_UNAVAILABLE",
      });
    }
  });

  test("knowing nothing, it answers false at once and fetches in the background", async () => {
    const { fake, status } = await harness();
    fake.setStatus({ kind: "json", countries: { DE: "Unavailable" } });
    expect(status.reportedOutage("DE")).toBeNull();
    await settle();
    expect(fake.calls.status).toBe(1);
    expect(status.reportedOutage("DE")?.code).toBe("member_state_unavailable");
  });

  test("a status older than the TTL is not trusted; it is refreshed once in the background", async () => {
    const { fake, clock, status } = await harness();
    fake.setStatus({ kind: "json", countries: { DE: "Unavailable" } });
    await status.get();
    clock.advance(60_000);
    for (let i = 0; i < 10; i += 1) expect(status.reportedOutage("DE")).toBeNull();
    await settle();
    expect(fake.calls.status).toBe(2);
    expect(status.reportedOutage("DE")?.code).toBe("member_state_unavailable");
  });

  test("after a failed refresh it stays quiet for the failure period", async () => {
    const { fake, clock, status } = await harness({ failureTtlSeconds: 10 });
    fake.setStatus({ kind: "html", status: 503 });
    expect(status.reportedOutage("DE")).toBeNull();
    await settle();
    clock.advance(5_000);
    expect(status.reportedOutage("DE")).toBeNull();
    await settle();
    expect(fake.calls.status).toBe(1);
  });
});
