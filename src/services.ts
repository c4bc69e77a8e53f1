import { type KeyAdmin, keyAdmin } from "./accounts/admin.ts";
import { type Account, Authenticator, accountOf } from "./accounts/authenticator.ts";
import { KeyStore } from "./accounts/key-store.ts";
import { createMeter } from "./accounts/meter.ts";
import { planCatalogue } from "./accounts/plans.ts";
import {
  counterWithFallback,
  countingFailures,
  databaseCounter,
  memoryCounter,
  RateLimiter,
  storeCounter,
} from "./accounts/rate-limit.ts";
import type { AppDeps } from "./app.ts";
import { createPoller } from "./background/poller.ts";
import { createBatchProcessor } from "./batches/processor.ts";
import { sweepFinishedBatches } from "./batches/store.ts";
import type { Config } from "./config.ts";
import { createIbanBuilder } from "./iban/build/build.ts";
import { createIbanEngine } from "./iban/engine.ts";
import { loadIbanRegistry } from "./iban/registry.ts";
import { IdempotencyStore } from "./idempotency/store.ts";
import type { Clock } from "./kernel/clock.ts";
import { type Database, pingDatabase } from "./kernel/db.ts";
import { describeFailure } from "./kernel/failure.ts";
import type { Logger } from "./kernel/log.ts";
import type { Storage } from "./kernel/storage.ts";
import { createMonitorChecker } from "./monitors/checker.ts";
import { createMetrics, observedUpstream } from "./observability/metrics.ts";
import { createKeyValueStore } from "./store/factory.ts";
import type { KeyValueStore } from "./store/kv.ts";
import { prefixedStore } from "./store/prefixed.ts";
import { ValidationRecords } from "./validation/records.ts";
import { enabledAuthorities } from "./vat/authorities.ts";
import { createChUidClient } from "./vat/ch/client.ts";
import { databaseLeases, type LeaseStore, storeLeases } from "./vat/leases.ts";
import { createNoBrregClient } from "./vat/no/client.ts";
import { createPacer } from "./vat/pacer.ts";
import { createRegisterWatch, type NationalSource } from "./vat/registers.ts";
import { createVatService } from "./vat/service.ts";
import { createStatusService } from "./vat/status.ts";
import { createUkVatClient } from "./vat/uk/client.ts";
import type { VatUpstream } from "./vat/upstream.ts";
import { createViesClient } from "./vat/vies/client.ts";
import { createViesStatusClient } from "./vat/vies/status.ts";
import { createWebhookDelivery } from "./webhooks/delivery.ts";
import { WebhookSecrets } from "./webhooks/secrets.ts";

export type Services = AppDeps & {
  database: Database;
  store: KeyValueStore;
  keyAdmin: KeyAdmin;
  /** Starts the workers: batch items, monitors' checks, webhook deliveries, retention sweeps. The server calls it once it listens. */
  startBackgroundWork(): void;
  /** Stops the workers; batch items and checks under way get `graceMs` to finish. */
  stopBackgroundWork(graceMs: number): Promise<void>;
  /**
   * Stops the workers if they run, waits for pending meter commits, releases cut-off
   * reservations, then closes the database and the store.
   */
  close(): Promise<void>;
};

/**
 * How long a request with an `Idempotency-Key` holds its key without renewing it: after a
 * crash, a repeat runs anew this much later. It is renewed while the request runs.
 */
export const IDEMPOTENCY_LEASE_MS = 10_000;

/** How often old validation records, finished batches and expired idempotency keys are looked for. */
const RETENTION_SWEEP_MS = 60 * 60 * 1000;

/** The account of a key for the background workers, trusted for `ttlMs`; null when the key is gone or revoked. */
function accountsOf(
  keys: KeyStore,
  plans: ReturnType<typeof planCatalogue>,
  clock: Clock,
  ttlMs: number,
): (keyId: string) => Promise<Account | null> {
  const held = new Map<string, { account: Account | null; at: number }>();
  return async (keyId) => {
    const entry = held.get(keyId);
    if (entry && clock.now() - entry.at < ttlMs) return entry.account;
    const record = await keys.findById(keyId);
    // A plan no longer offered is refused like a revoked key, not retried forever.
    const account =
      record && record.revokedAt === null && plans[record.planId] ? accountOf(record, plans) : null;
    held.set(keyId, { account, at: clock.now() });
    return account;
  };
}

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
  const ibanRegistry = loadIbanRegistry();
  const iban = createIbanEngine(ibanRegistry);
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
  const metrics = createMetrics();
  // Per-minute windows live in Redis when there is one, else in Postgres (shared by the
  // instances), else in process (embedded: one process).
  const counter =
    store.kind === "redis" || store.kind === "upstash"
      ? counterWithFallback(storeCounter(store), memoryCounter(), log, () =>
          metrics.storeErrors.inc({ store: "cache", operation: "rate_limit" }),
        )
      : config.DATABASE_URL
        ? countingFailures(databaseCounter(database), () =>
            metrics.storeErrors.inc({ store: "database", operation: "rate_limit" }),
          )
        : memoryCounter();
  // The slots per member state are held where the per-minute windows are, for the same reason.
  const leases: LeaseStore | null = store.runScript
    ? storeLeases(store)
    : config.DATABASE_URL
      ? databaseLeases(database, config.STORE_KEY_PREFIX)
      : null;
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
      protocol: config.VIES_PROTOCOL,
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
  const enabled = enabledAuthorities(config);
  const registers = createRegisterWatch(clock, enabled);
  const national = (source: NationalSource, upstream: VatUpstream) =>
    registers.watched(source, observedUpstream(upstream, metrics, source));
  const ch = enabled.ch_uid
    ? national("ch_uid", createChUidClient({ baseUrl: config.CH_UID_BASE_URL, clock, log }))
    : null;
  const no = enabled.no_brreg
    ? national("no_brreg", createNoBrregClient({ baseUrl: config.NO_BRREG_BASE_URL, clock }))
    : null;
  const vat = createVatService({
    vies,
    uk: uk && registers.watched("uk_authority", uk),
    ch,
    no,
    // The register's per-minute limit is per client: this instance's calls keep under it.
    pacers: { CH: createPacer({ perWindow: config.CH_UID_MAX_PER_MINUTE }) },
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
    sharedSlots: leases && {
      leases,
      leaseMs: config.VIES_SLOT_LEASE_MS,
      timeoutMs: config.REDIS_TIMEOUT_MS,
      onFailure: () =>
        metrics.storeErrors.inc({
          store: store.runScript ? "cache" : "database",
          operation: "upstream_slots",
        }),
    },
    onCacheFault: (fault) => metrics.storeErrors.inc({ store: "cache", operation: `vat_${fault.operation}` }),
    onCacheLookup: (result) => metrics.vatCacheLookups.inc({ result }),
  });

  const records = new ValidationRecords(database);
  const idempotency = new IdempotencyStore(database, {
    ttlHours: config.IDEMPOTENCY_TTL_HOURS,
    leaseMs: IDEMPOTENCY_LEASE_MS,
  });
  const webhookSecrets = new WebhookSecrets(database);
  const webhookPolicy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE };
  const webhookLookup = { timeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS };
  // Batch items and webhook deliveries are claimed from the same database on the same schedule.
  const worker = {
    database,
    log,
    pollMs: config.BATCH_POLL_MS,
    leaseMs: config.BATCH_LEASE_SECONDS * 1000,
    soleWorker: database.kind === "pglite",
  };
  // Twice a member state's slots: when a call ends, the next item of the state is already
  // waiting for its slot; no more, so a hanging state holds no more of a worker's slots.
  const perStateMax = 2 * config.VIES_MAX_CONCURRENT_PER_STATE;
  const accounts = accountsOf(keys, plans, clock, config.KEY_CACHE_TTL_MS);
  const processor = createBatchProcessor({
    ...worker,
    iban,
    vat,
    meter,
    account: accounts,
    concurrency: config.BATCH_CONCURRENCY,
    perStateMax,
    retryWindowSeconds: config.BATCH_RETRY_WINDOW_SECONDS,
    onFinished: (status, count) => metrics.batchItems.inc({ status }, count),
  });
  const checker = createMonitorChecker({
    ...worker,
    vat,
    meter,
    clock,
    account: accounts,
    concurrency: config.MONITOR_CONCURRENCY,
    perStateMax,
    retryWindowSeconds: config.BATCH_RETRY_WINDOW_SECONDS,
    onChecked: (outcome) => metrics.monitorChecks.inc({ outcome }),
  });
  const webhooks = createWebhookDelivery({
    ...worker,
    secrets: webhookSecrets,
    policy: webhookPolicy,
    concurrency: config.WEBHOOK_CONCURRENCY,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    connectTimeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
    backoffBaseMs: config.WEBHOOK_BACKOFF_BASE_MS,
  });
  const retention = createPoller({
    intervalMs: RETENTION_SWEEP_MS,
    onError: (error) => log.warn("retention_sweep_failed", describeFailure(error)),
    async tick() {
      await records.sweep(config.VALIDATION_RECORD_DAYS);
      await sweepFinishedBatches(database, config.BATCH_RETENTION_DAYS);
      await idempotency.sweep();
      return false;
    },
  });
  let background = false;

  return {
    config,
    clock,
    log,
    iban,
    ibanBuilder: createIbanBuilder(iban, ibanRegistry),
    vat,
    status,
    registers,
    records,
    idempotency,
    batches: { database, config, webhookPolicy, webhookLookup, wake: () => processor.wake() },
    monitors: { database, clock, config, webhookPolicy, webhookLookup, wake: () => checker.wake() },
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
    keyAdmin: keyAdmin({ keys, meter, plans, clock, webhookSecrets }),
    startBackgroundWork() {
      background = true;
      processor.start();
      checker.start();
      webhooks.start();
      retention.start();
    },
    async stopBackgroundWork(graceMs) {
      if (!background) return;
      background = false;
      await Promise.all([
        processor.stop(graceMs),
        checker.stop(graceMs),
        webhooks.stop(graceMs),
        retention.stop(),
      ]);
    },
    async close() {
      await this.stopBackgroundWork(0);
      await records.idle();
      await idempotency.idle();
      await meter.close();
      await store.close();
      await storage.close();
    },
  };
}
