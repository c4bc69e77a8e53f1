import { afterAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/kernel/log.ts";
import { prefixedStore } from "../../src/store/prefixed.ts";
import { createRedisStore } from "../../src/store/redis.ts";
import { createUpstashStore } from "../../src/store/upstash.ts";
import { databaseLeases, type LeaseStore, storeLeases } from "../../src/vat/leases.ts";
import { createKeyedLimiter, type Release } from "../../src/vat/limiter.ts";
import { createSharedLimiter } from "../../src/vat/shared-limiter.ts";
import { startUpstashFake } from "../fakes/upstash.ts";
import { SLACK_MS } from "../store/timing.ts";
import { closedPort, startSilentServer } from "../store/unreachable.ts";
import { testDatabase } from "../support/database.ts";

const redisUrl = process.env.REDIS_URL;
const CAP = 2;

function capturingLog() {
  const lines: string[] = [];
  const log = createLogger("debug", (line) => lines.push(line));
  const events = (name: string) => lines.filter((line) => line.includes(`"event":"${name}"`)).length;
  return { log, events };
}

/** One instance's limiter on `leases`: its own local limiter, as each process has. */
function instance(
  leases: LeaseStore,
  options: { leaseMs?: number; cap?: number; onFailure?: () => void } = {},
) {
  const cap = options.cap ?? CAP;
  return createSharedLimiter({
    local: createKeyedLimiter({ maxConcurrent: cap, maxWaiting: 100 }),
    leases,
    cap,
    leaseMs: options.leaseMs ?? 5000,
    timeoutMs: 2000,
    log: capturingLog().log,
    onFailure: options.onFailure,
  });
}

const fake = redisUrl ? startUpstashFake({ redisUrl }) : null;
afterAll(() => fake?.stop());

const stores: { name: string; enabled: boolean; open: () => Promise<LeaseStore> }[] = [
  {
    name: process.env.DATABASE_URL ? "Postgres (DATABASE_URL)" : "embedded PGlite",
    enabled: true,
    open: async () => databaseLeases(await testDatabase(), `test:slots:${crypto.randomUUID()}:`),
  },
  {
    name: "Redis (REDIS_URL)",
    enabled: redisUrl !== undefined,
    open: async () =>
      storeLeases(
        prefixedStore(
          createRedisStore({ url: redisUrl ?? "", timeoutMs: 2000 }),
          `test:slots:${crypto.randomUUID()}:`,
        ),
      ),
  },
  {
    name: "Upstash (the REST fake on REDIS_URL)",
    enabled: fake !== null,
    open: async () =>
      storeLeases(
        prefixedStore(
          createUpstashStore({ url: fake?.url ?? "", token: fake?.token ?? "", timeoutMs: 2000 }),
          `test:slots:${crypto.randomUUID()}:`,
        ),
      ),
  },
];

for (const store of stores) {
  describe.if(store.enabled)(`slots held across instances on ${store.name}`, () => {
    test("two instances hold no more than the cap together; a freed slot goes to the other's waiter", async () => {
      const leases = await store.open();
      const [a, b] = [instance(leases), instance(leases)];
      const first = await a.acquire("DE", 0);
      const second = await b.acquire("DE", 0);
      expect(first).not.toBeNull();
      expect(second).not.toBeNull();
      // Each instance has a local slot free, but the cap is taken across both.
      expect(await a.acquire("DE", 0)).toBeNull();
      expect(await b.acquire("DE", 0)).toBeNull();
      // Another member state has slots of its own.
      (await a.acquire("FR", 0))?.();
      const waiting = b.acquire("DE", 10_000);
      first?.();
      const third = await waiting;
      expect(third).not.toBeNull();
      second?.();
      third?.();
    });

    test("many callers on both instances: never more than the cap at once, and every one served", async () => {
      const leases = await store.open();
      const limiters = [instance(leases), instance(leases)];
      let inFlight = 0;
      let most = 0;
      const served = await Promise.all(
        Array.from({ length: 12 }, async (_, index) => {
          const release = await limiters[index % 2]?.acquire("DE", 30_000);
          if (!release) return false;
          inFlight += 1;
          most = Math.max(most, inFlight);
          await Bun.sleep(10);
          inFlight -= 1;
          release();
          return true;
        }),
      );
      expect(served.every(Boolean)).toBe(true);
      expect(most).toBeLessThanOrEqual(CAP);
    });

    test("a caller whose wait ends with every slot held gets none, and frees its local slot", async () => {
      const leases = await store.open();
      const [a, b] = [instance(leases), instance(leases)];
      const held = [await a.acquire("DE", 0), await a.acquire("DE", 0)];
      const started = performance.now();
      expect(await b.acquire("DE", 100)).toBeNull();
      expect(performance.now() - started).toBeGreaterThanOrEqual(100);
      expect(b.load("DE")).toEqual({ active: 0, waiting: 0 });
      for (const release of held) release?.();
    });

    test("a lease never given back (its instance died) comes back after the lease time", async () => {
      const leases = await store.open();
      const leaseMs = 400;
      const before = performance.now();
      expect(await leases.take("slots:DE", 1, leaseMs)).not.toBeNull();
      const release = await instance(leases, { cap: 1 }).acquire("DE", 10_000);
      expect(release).not.toBeNull();
      // The store's clock has the millisecond at most.
      expect(performance.now() - before).toBeGreaterThanOrEqual(leaseMs - 1);
      release?.();
    });

    test("a holder renews its lease: held three lease times, it is still its own", async () => {
      const leases = await store.open();
      const leaseMs = 600;
      const holder = instance(leases, { cap: 1, leaseMs });
      const other = instance(leases, { cap: 1, leaseMs });
      const held = await holder.acquire("DE", 0);
      expect(held).not.toBeNull();
      expect(await other.acquire("DE", 3 * leaseMs)).toBeNull();
      held?.();
      const next = await other.acquire("DE", 10_000);
      expect(next).not.toBeNull();
      next?.();
    });

    test("concurrent takes: no more leases than the cap, and the cap can be filled", async () => {
      const leases = await store.open();
      const taken = (await Promise.all(Array.from({ length: 40 }, () => leases.take("k", 3, 5000)))).filter(
        (lease) => lease !== null,
      );
      expect(taken.length).toBeGreaterThanOrEqual(1);
      expect(taken.length).toBeLessThanOrEqual(3);
      // Two takers picking the same free slot leave one of them empty-handed: they try again.
      while (taken.length < 3) {
        const lease = await leases.take("k", 3, 5000);
        if (lease) taken.push(lease);
      }
      expect(await leases.take("k", 3, 5000)).toBeNull();
      await taken[0]?.give();
      expect(await leases.take("k", 3, 5000)).not.toBeNull();
      // A lease that lapsed is not renewed into a fourth.
      const short = await leases.take("other", 1, 300);
      await Bun.sleep(350);
      expect(await short?.renew(5000)).toBe(false);
    });
  });
}

describe("when the lease store fails, each instance's own slots stand in", () => {
  const silent = startSilentServer();
  afterAll(() => silent.stop(true));

  const failing = [
    { how: "Redis refuses connections", url: `redis://127.0.0.1:${closedPort()}` },
    { how: "Redis never answers", url: `redis://127.0.0.1:${silent.port}` },
  ];
  for (const { how, url } of failing) {
    test(how, async () => {
      const { log, events } = capturingLog();
      let failures = 0;
      const timeoutMs = 200;
      const limiter = createSharedLimiter({
        local: createKeyedLimiter({ maxConcurrent: CAP, maxWaiting: 100 }),
        leases: storeLeases(createRedisStore({ url, timeoutMs: 5000 })),
        cap: CAP,
        leaseMs: 5000,
        timeoutMs,
        log,
        onFailure: () => {
          failures += 1;
        },
      });
      const started = performance.now();
      const held: (Release | null)[] = [
        await limiter.acquire("DE", 10_000),
        await limiter.acquire("DE", 10_000),
      ];
      expect(performance.now() - started).toBeLessThan(2 * (timeoutMs + SLACK_MS));
      expect(held.every((release) => release !== null)).toBe(true);
      // The local cap still holds.
      expect(await limiter.acquire("DE", 0)).toBeNull();
      expect(failures).toBe(2);
      expect(events("shared_slots_failed")).toBe(1);
      for (const release of held) release?.();
    });
  }
});
