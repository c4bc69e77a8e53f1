import { describe, expect, test } from "bun:test";
import type { LogFields } from "../../src/kernel/log.ts";
import type { KeyValueStore } from "../../src/store/kv.ts";
import { createMemoryStore } from "../../src/store/memory.ts";
import { createRedisStore } from "../../src/store/redis.ts";
import { createUpstashStore } from "../../src/store/upstash.ts";
import { type CacheFault, createVatCache, type VatCacheOptions } from "../../src/vat/cache.ts";
import type { UpstreamFault, UpstreamVerdict } from "../../src/vat/upstream.ts";
import { startUpstashFake } from "../fakes/upstash.ts";
import { startTcpRelay } from "../store/tcp-relay.ts";
import { SLACK_MS } from "../store/timing.ts";
import { closedPort, startSilentServer } from "../store/unreachable.ts";
import { type ManualClock, manualClock } from "../support/manual-clock.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

function verdictAt(clock: ManualClock, overrides: Partial<UpstreamVerdict> = {}): UpstreamVerdict {
  return {
    kind: "verdict",
    valid: true,
    name: "ACME Handels GmbH",
    address: "Musterstraße 1\n10115 Berlin",
    checkedAt: new Date(clock.now()).toISOString(),
    consultationNumber: "WAPIAAAAZ2xcAbCd",
    traderMatch: null,
    source: "vies",
    ...overrides,
  };
}

function harness(options: Partial<VatCacheOptions> & { store?: KeyValueStore } = {}) {
  const clock = manualClock();
  const store = options.store ?? createMemoryStore({ maxEntries: 100, clock });
  const logged: { event: string; fields: LogFields }[] = [];
  const faults: CacheFault[] = [];
  const cache = createVatCache({
    store,
    clock,
    log: (event, fields) => logged.push({ event, fields }),
    onFault: (fault) => faults.push(fault),
    ...options,
  });
  return { clock, store, cache, logged, faults };
}

describe("VAT cache freshness", () => {
  test("serves a verdict as fresh, exactly as it was put, consultation number included", async () => {
    const { clock, cache } = harness();
    const verdict = verdictAt(clock);
    await cache.put("DE123456789", verdict);
    expect(await cache.get("DE123456789")).toEqual({ verdict, state: "fresh" });
  });

  test("keeps no authority match codes: they answer the details of the call that asked", async () => {
    const { clock, cache, store } = harness();
    const verdict = verdictAt(clock, { traderMatch: { name: "match", city: "mismatch" } });
    await cache.put("ESB83891812", verdict);
    expect(await cache.get("ESB83891812")).toEqual({
      verdict: { ...verdict, traderMatch: null },
      state: "fresh",
    });
    expect(await store.get("vat:v1:ESB83891812")).not.toContain("traderMatch");
  });

  test("keeps verdicts of different numbers apart", async () => {
    const { clock, cache } = harness();
    const registered = verdictAt(clock);
    const unknown = verdictAt(clock, { valid: false, name: null, address: null, consultationNumber: null });
    await cache.put("DE123456789", registered);
    await cache.put("DE987654321", unknown);
    expect((await cache.get("DE123456789"))?.verdict).toEqual(registered);
    expect((await cache.get("DE987654321"))?.verdict).toEqual(unknown);
    expect(await cache.get("DE111111111")).toBeNull();
  });

  test("is fresh for 24 hours after the check, then stale until 30 days after it, then gone", async () => {
    const { clock, cache } = harness();
    await cache.put("ATU12345678", verdictAt(clock));
    clock.advance(DAY - 1);
    expect((await cache.get("ATU12345678"))?.state).toBe("fresh");
    clock.advance(1);
    expect((await cache.get("ATU12345678"))?.state).toBe("stale");
    clock.advance(29 * DAY - 1);
    expect((await cache.get("ATU12345678"))?.state).toBe("stale");
    clock.advance(1);
    expect(await cache.get("ATU12345678")).toBeNull();
  });

  test("counts both periods from when the authority checked, not from when it was put", async () => {
    const { clock, cache } = harness();
    const verdict = verdictAt(clock);
    clock.advance(2 * HOUR);
    await cache.put("NL123456789B01", verdict);
    clock.advance(DAY - 2 * HOUR);
    expect((await cache.get("NL123456789B01"))?.state).toBe("stale");
    clock.advance(29 * DAY);
    expect(await cache.get("NL123456789B01")).toBeNull();
  });

  test("honours configured periods", async () => {
    const { clock, cache } = harness({ freshTtlSeconds: 60, lkgTtlSeconds: 120 });
    await cache.put("FR12345678901", verdictAt(clock));
    clock.advance(60_000);
    expect((await cache.get("FR12345678901"))?.state).toBe("stale");
    clock.advance(60_000);
    expect(await cache.get("FR12345678901")).toBeNull();
  });

  test("stores one entry with explicit freshness, expiring in the store when it stops being useful", async () => {
    const { clock, cache, store } = harness();
    const verdict = verdictAt(clock);
    await cache.put("DE123456789", verdict);
    const raw = await store.get("vat:v1:DE123456789");
    const { traderMatch: _, ...stored } = verdict;
    expect(JSON.parse(raw ?? "")).toEqual({
      value: stored,
      checkedAt: clock.now(),
      freshUntil: clock.now() + DAY,
      staleUntil: clock.now() + 30 * DAY,
    });
    clock.advance(30 * DAY - 1);
    expect(await store.get("vat:v1:DE123456789")).not.toBeNull();
    clock.advance(1);
    expect(await store.get("vat:v1:DE123456789")).toBeNull();
  });

  test("a newer put replaces the older verdict and restarts freshness", async () => {
    const { clock, cache } = harness();
    await cache.put("DE123456789", verdictAt(clock, { name: "Old Name GmbH" }));
    clock.advance(DAY + HOUR);
    const renewed = verdictAt(clock, { name: "New Name GmbH" });
    await cache.put("DE123456789", renewed);
    expect(await cache.get("DE123456789")).toEqual({ verdict: renewed, state: "fresh" });
  });

  test("does not store a verdict already past the last-known-good period", async () => {
    const { clock, cache, store } = harness();
    const ancient = verdictAt(clock);
    clock.advance(30 * DAY);
    await cache.put("DE123456789", ancient);
    expect(await store.get("vat:v1:DE123456789")).toBeNull();
  });

  test("refuses periods that are not positive whole seconds, or a last-known-good shorter than fresh", () => {
    for (const periods of [
      { freshTtlSeconds: 0 },
      { lkgTtlSeconds: -1 },
      { freshTtlSeconds: 1.5 },
      { freshTtlSeconds: 120, lkgTtlSeconds: 60 },
    ]) {
      expect(() => harness(periods)).toThrow(RangeError);
    }
  });
});

describe("VAT cache never holds a fault", () => {
  test("the type of put admits verdicts only; a fault slipped past it is not stored", async () => {
    const { cache, store, faults } = harness();
    const fault: UpstreamFault = {
      kind: "fault",
      code: "member_state_unavailable",
      detail: "MS_UNAVAILABLE",
      retryable: true,
    };
    // @ts-expect-error a fault is not a verdict: caching one must not compile
    await cache.put("DE123456789", fault);
    expect(await store.get("vat:v1:DE123456789")).toBeNull();
    expect(faults).toEqual([{ operation: "put", reason: "invalid_verdict" }]);
  });
});

describe("VAT cache with an unreadable entry", () => {
  const valid = verdictAt(manualClock());
  const unreadable = [
    "not json",
    "",
    "null",
    '"a string"',
    JSON.stringify({ value: valid, checkedAt: 1 }),
    JSON.stringify({ value: { ...valid, valid: "yes" }, checkedAt: 1, freshUntil: 2, staleUntil: 3 }),
    JSON.stringify({ value: { ...valid, kind: "fault" }, checkedAt: 1, freshUntil: 2, staleUntil: 3 }),
    JSON.stringify({ value: { ...valid, source: "syntax" }, checkedAt: 1, freshUntil: 2, staleUntil: 3 }),
  ];

  test("answers a miss and reports the corrupt entry", async () => {
    for (const raw of unreadable) {
      const { cache, store, logged, faults } = harness();
      await store.set("vat:v1:DE123456789", raw, 60);
      expect(await cache.get("DE123456789")).toBeNull();
      expect(faults).toEqual([{ operation: "get", reason: "corrupt_entry" }]);
      expect(logged.map(({ event, fields }) => [event, fields.reason])).toEqual([
        ["vat_cache_fault", "corrupt_entry"],
      ]);
    }
  });
});

describe("VAT cache during a store outage", () => {
  const TIMEOUT_MS = 100;

  const redisUrl = process.env.REDIS_URL;
  test.if(Boolean(redisUrl))(
    "an outage is logged when it starts and when it ends, however many calls fail",
    async () => {
      const target = new URL(redisUrl as string);
      const relay = startTcpRelay({ hostname: target.hostname, port: Number(target.port || 6379) });
      const store = createRedisStore({ url: `redis://127.0.0.1:${relay.port}`, timeoutMs: 1000 });
      const { clock, cache, logged, faults } = harness({ store, timeoutMs: 1000 });
      try {
        await cache.put(`DE${Date.now()}`, verdictAt(clock));
        relay.stop();
        for (let i = 0; i < 5; i++) {
          await cache.put("DE123456789", verdictAt(clock));
          await cache.get("DE123456789");
        }
        relay.start();
        await cache.put("DE123456789", verdictAt(clock));
        expect(faults).toHaveLength(10);
        expect(logged.map(({ event }) => event)).toEqual(["vat_cache_fault", "vat_cache_store_recovered"]);
      } finally {
        await store.close();
        relay.stop();
      }
    },
  );

  async function expectDegraded(store: KeyValueStore, reason: CacheFault["reason"]) {
    const { clock, cache, logged, faults } = harness({ store, timeoutMs: TIMEOUT_MS });
    let started = performance.now();
    await cache.put("DE123456789", verdictAt(clock));
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    started = performance.now();
    expect(await cache.get("DE123456789")).toBeNull();
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(faults).toEqual([
      { operation: "put", reason },
      { operation: "get", reason },
    ]);
    // Every fault is counted; only the start of the outage is logged.
    expect(logged.map(({ event, fields }) => [event, fields.operation, fields.reason])).toEqual([
      ["vat_cache_fault", "put", reason],
    ]);
    await store.close();
  }

  test("a store refusing connections: misses and dropped writes, at once", async () => {
    await expectDegraded(
      createRedisStore({ url: `redis://127.0.0.1:${closedPort()}`, timeoutMs: 5000 }),
      "store_error",
    );
  });

  test("a store that never answers: the cache's own deadline bounds the delay", async () => {
    const silent = startSilentServer();
    try {
      // The store would wait 5 s; the cache must give up after its own 100 ms.
      await expectDegraded(
        createRedisStore({ url: `redis://127.0.0.1:${silent.port}`, timeoutMs: 5000 }),
        "timeout",
      );
    } finally {
      silent.stop(true);
    }
  });

  test("a slow Upstash endpoint: timeouts, not errors", async () => {
    const fake = startUpstashFake({ redisUrl: `redis://127.0.0.1:${closedPort()}` });
    fake.setLatency(2000);
    try {
      await expectDegraded(
        createUpstashStore({ url: fake.url, token: fake.token, timeoutMs: 5000 }),
        "timeout",
      );
    } finally {
      await fake.stop();
    }
  });

  test("an Upstash endpoint that is down", async () => {
    const fake = startUpstashFake({ redisUrl: `redis://127.0.0.1:${closedPort()}` });
    await fake.setDown(true, "unavailable");
    try {
      await expectDegraded(
        createUpstashStore({ url: fake.url, token: fake.token, timeoutMs: 5000 }),
        "store_error",
      );
    } finally {
      await fake.stop();
    }
  });

  test("a store timing out by itself is reported as a timeout too", async () => {
    const silent = startSilentServer();
    try {
      const store = createRedisStore({ url: `redis://127.0.0.1:${silent.port}`, timeoutMs: 30 });
      await expectDegraded(store, "timeout");
    } finally {
      silent.stop(true);
    }
  });
});
