import { describe, expect, test } from "bun:test";
import type { KeyValueStore } from "../../src/store/kv.ts";
import { createRedisStore } from "../../src/store/redis.ts";
import { createUpstashStore } from "../../src/store/upstash.ts";
import { startUpstashFake, type UpstashFake } from "../fakes/upstash.ts";
import { SLACK_MS } from "../store/timing.ts";
import { closedPort, startSilentServer } from "../store/unreachable.ts";
import { type ServiceHarness, serviceHarnesses, wellFormedNumbers } from "./service-harness.ts";

const harness = serviceHarnesses();
const CACHE_TIMEOUT_MS = 100;
const redisUrl = process.env.REDIS_URL;

/** Two checks of one number over a failing store: both answered by VIES, quickly, each billable. */
async function expectVerdictsWithoutCache(h: ServiceHarness) {
  for (const attempt of [1, 2]) {
    const started = performance.now();
    const { result, fresh } = await h.check("NL854265259B01");
    // At most one cache read and one cache write can each take the cache's timeout.
    expect(performance.now() - started).toBeLessThan(2 * CACHE_TIMEOUT_MS + SLACK_MS);
    expect([attempt, result.valid, result.cached, fresh]).toEqual([attempt, true, false, true]);
  }
  expect(h.vies.calls.total).toBe(2);
  expect(h.logged().some((line) => line.event === "vat_cache_fault")).toBe(true);
}

describe("VAT service when the cache store fails", () => {
  test("a Redis store nobody listens on: VIES answers directly", async () => {
    const store = createRedisStore({ url: `redis://127.0.0.1:${closedPort()}`, timeoutMs: 5_000 });
    await expectVerdictsWithoutCache(await harness({ store, cacheTimeoutMs: CACHE_TIMEOUT_MS }));
  });

  test("a Redis store that never answers: the cache timeout bounds the delay", async () => {
    const silent = startSilentServer();
    try {
      const store = createRedisStore({ url: `redis://127.0.0.1:${silent.port}`, timeoutMs: 5_000 });
      await expectVerdictsWithoutCache(await harness({ store, cacheTimeoutMs: CACHE_TIMEOUT_MS }));
    } finally {
      silent.stop(true);
    }
  });

  for (const how of ["refused", "unavailable"] as const) {
    test(`an Upstash endpoint that is down (${how})`, async () => {
      const fake = startUpstashFake({ redisUrl: `redis://127.0.0.1:${closedPort()}` });
      try {
        await fake.setDown(true, how);
        const store = createUpstashStore({ url: fake.url, token: fake.token, timeoutMs: 5_000 });
        await expectVerdictsWithoutCache(await harness({ store, cacheTimeoutMs: CACHE_TIMEOUT_MS }));
      } finally {
        await fake.stop();
      }
    });
  }

  test("a slow Upstash endpoint", async () => {
    const fake = startUpstashFake({ redisUrl: `redis://127.0.0.1:${closedPort()}` });
    fake.setLatency(2_000);
    try {
      const store = createUpstashStore({ url: fake.url, token: fake.token, timeoutMs: 5_000 });
      await expectVerdictsWithoutCache(await harness({ store, cacheTimeoutMs: CACHE_TIMEOUT_MS }));
    } finally {
      await fake.stop();
    }
  });
});

/** Two service instances on one shared store: what one checked, the other serves from cache. */
async function expectSharedCache(makeStore: () => KeyValueStore) {
  const [number = ""] = wellFormedNumbers("DE", 299_000_000, 1);
  const first = await harness({ store: makeStore() });
  const second = await harness({ store: makeStore() });
  first.vies.addNumber("DE", number.slice(2), { valid: true });
  await first.store.del(`vat:v1:${number}`);
  try {
    const checked = await first.check(number);
    expect([checked.result.valid, checked.fresh]).toEqual([true, true]);
    const served = await second.check(number);
    expect([served.phase, served.result.cached, served.result.checked_at]).toEqual([
      "plan",
      true,
      checked.result.checked_at,
    ]);
    expect(second.vies.calls.total).toBe(0);
  } finally {
    await first.store.del(`vat:v1:${number}`);
  }
}

describe.if(redisUrl !== undefined)("VAT service on shared stores (REDIS_URL)", () => {
  test("Redis", async () => {
    await expectSharedCache(() => createRedisStore({ url: redisUrl ?? "", timeoutMs: 1_000 }));
  });

  test("Upstash", async () => {
    const fakes: UpstashFake[] = [];
    try {
      await expectSharedCache(() => {
        const fake = startUpstashFake({ redisUrl });
        fakes.push(fake);
        return createUpstashStore({ url: fake.url, token: fake.token, timeoutMs: 1_000 });
      });
    } finally {
      await Promise.all(fakes.map((fake) => fake.stop()));
    }
  });
});
