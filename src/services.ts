import { type KeyAdmin, keyAdmin } from "./accounts/admin.ts";
import { Authenticator } from "./accounts/authenticator.ts";
import { KeyStore } from "./accounts/key-store.ts";
import { createMeter } from "./accounts/meter.ts";
import { planCatalogue } from "./accounts/plans.ts";
import {
  counterWithFallback,
  countingFailures,
  databaseCounter,
  RateLimiter,
  storeCounter,
} from "./accounts/rate-limit.ts";
import type { AppDeps } from "./app.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { type Database, pingDatabase } from "./db.ts";
import { createIbanEngine } from "./iban/engine.ts";
import { loadIbanRegistry } from "./iban/registry.ts";
import type { Logger } from "./log.ts";
import { createMetrics, observedUpstream } from "./observability/metrics.ts";
import type { Storage } from "./storage.ts";
import { createKeyValueStore } from "./store/factory.ts";
import type { KeyValueStore } from "./store/kv.ts";
import { createMemoryStore } from "./store/memory.ts";
import { prefixedStore } from "./store/prefixed.ts";
import { createVatService } from "./vat/service.ts";
import { createStatusService } from "./vat/status.ts";
import { createUkVatClient } from "./vat/uk/client.ts";
import { createViesClient } from "./vat/vies/client.ts";
import { createViesStatusClient } from "./vat/vies/status.ts";

export type Services = AppDeps & {
  database: Database;
  store: KeyValueStore;
  keyAdmin: KeyAdmin;
  /** Waits for pending meter commits, releases cut-off reservations, then closes the database and the store. */
  close(): Promise<void>;
};

/**
 * Builds every dependency of the app from the configuration and an opened storage: the
 * shared store, the IBAN engine, the VAT service with its upstream clients, and the
 * accounts machinery. Tests pass their own clock and point the upstream URLs at fakes.
 */
export function createServices(
  config: Config,
  context: { clock: Clock; log: Logger; storage: Storage },
): Services {
  const { clock, log, storage } = context;
  const iban = createIbanEngine(loadIbanRegistry());
  const database = storage.database;
  const sharedStore = createKeyValueStore(
    {
      upstashUrl: config.UPSTASH_REDIS_REST_URL,
      upstashToken: config.UPSTASH_REDIS_REST_TOKEN,
      redisUrl: config.REDIS_URL,
      databaseMaxEntries: config.DATABASE_CACHE_MAX_ENTRIES,
      memoryMaxEntries: config.MEMORY_CACHE_MAX_ENTRIES,
      timeoutMs: config.REDIS_TIMEOUT_MS,
    },
    { clock, database },
  );
  const store = config.STORE_KEY_PREFIX ? prefixedStore(sharedStore, config.STORE_KEY_PREFIX) : sharedStore;

  const plans = planCatalogue(config.GATEWAY_RATE_LIMIT_PER_MINUTE);
  const keys = new KeyStore(database);
  const inProcessCounter = () => storeCounter(createMemoryStore({ maxEntries: 100_000, clock }));
  const metrics = createMetrics();
  // Per-minute windows live in Redis when there is one, else in Postgres (shared by the
  // instances), else in process (embedded: one process).
  const counter =
    store.kind === "redis" || store.kind === "upstash"
      ? counterWithFallback(storeCounter(store), inProcessCounter(), log, () =>
          metrics.storeErrors.inc({ store: "cache", operation: "rate_limit" }),
        )
      : config.DATABASE_URL
        ? countingFailures(databaseCounter(database), () =>
            metrics.storeErrors.inc({ store: "database", operation: "rate_limit" }),
          )
        : inProcessCounter();
  const meter = createMeter(database, clock, {
    // A reservation must outlive the longest request that may settle it.
    reservationTtlMs: Math.max(60_000, 2 * config.VAT_DEADLINE_MS),
  });

  const statusClient = createViesStatusClient({ baseUrl: config.VIES_BASE_URL });
  const status = createStatusService({
    client: statusClient,
    store,
    clock,
    log,
    ttlSeconds: config.STATUS_CACHE_TTL_SECONDS,
    storeTimeoutMs: config.CACHE_TIMEOUT_MS,
  });
  const vies = observedUpstream(
    createViesClient({
      baseUrl: config.VIES_BASE_URL,
      requesterVat: config.VIES_REQUESTER_VAT ?? null,
      clock,
      log: (event, fields) => log.warn(event, fields),
    }),
    metrics,
    "vies",
  );
  const uk =
    config.UK_VAT_ENABLED && config.UK_VAT_CLIENT_ID && config.UK_VAT_CLIENT_SECRET
      ? observedUpstream(
          createUkVatClient({
            baseUrl: config.UK_VAT_BASE_URL,
            clientId: config.UK_VAT_CLIENT_ID,
            clientSecret: config.UK_VAT_CLIENT_SECRET,
            requesterVrn: config.UK_VAT_REQUESTER_VRN,
            clock,
            log,
          }),
          metrics,
          "uk_authority",
        )
      : null;
  const vat = createVatService({
    vies,
    uk,
    status,
    store,
    clock,
    log,
    freshTtlSeconds: config.VAT_CACHE_TTL_SECONDS,
    lkgTtlSeconds: config.VAT_LKG_TTL_SECONDS,
    cacheTimeoutMs: config.CACHE_TIMEOUT_MS,
    deadlineMs: config.VAT_DEADLINE_MS,
    staleAfterMs: config.VAT_STALE_AFTER_MS,
    attemptTimeoutMs: config.VIES_TIMEOUT_MS,
    maxConcurrentPerState: config.VIES_MAX_CONCURRENT_PER_STATE,
    onCacheFault: (fault) => metrics.storeErrors.inc({ store: "cache", operation: `vat_${fault.operation}` }),
    onCacheLookup: (result) => metrics.vatCacheLookups.inc({ result }),
  });

  return {
    config,
    clock,
    log,
    iban,
    vat,
    status,
    authenticator: new Authenticator({
      keys,
      plans,
      clock,
      cacheTtlMs: config.KEY_CACHE_TTL_MS,
      gatewayProxySecret: config.GATEWAY_PROXY_SECRET ?? null,
      onDatabaseError: () => metrics.storeErrors.inc({ store: "database", operation: "authenticate" }),
      onLookup: (result) => metrics.keyLookups.inc({ result }),
    }),
    rateLimiter: new RateLimiter(counter, clock),
    meter,
    metrics,
    pingDatabase: () => pingDatabase(database),
    pingStore: () => store.ping(),
    database,
    store,
    keyAdmin: keyAdmin({ keys, meter, plans, clock }),
    async close() {
      await meter.close();
      await store.close();
      await storage.close();
    },
  };
}
