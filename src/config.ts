import { type Static, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { VIES_PROTOCOLS } from "./vat/vies/client.ts";
import { parseRequesterVat } from "./vat/vies/requester.ts";

// Plain TypeBox rather than Elysia's `t`: Elysia's request-oriented kinds do not take part in
// Value.Convert, which is what turns environment strings into numbers and booleans here.
const oneOf = <T extends string>(values: readonly T[], defaultValue: T) =>
  t.Union(
    values.map((value) => t.Literal(value)),
    { default: defaultValue },
  );

/**
 * Every setting the service reads, with its environment variable name and default.
 * Parsed and validated once at start; nothing else reads `process.env`.
 */
export const ConfigSchema = t.Object({
  PORT: t.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: t.String({ default: "0.0.0.0" }),
  LOG_LEVEL: oneOf(["debug", "info", "warn", "error", "silent"] as const, "info"),
  /** On SIGTERM/SIGINT, how long in-flight requests may take to finish before connections are closed. */
  SHUTDOWN_TIMEOUT_MS: t.Integer({ minimum: 0, maximum: 120_000, default: 15_000 }),
  /** How long the server retries an unreachable Postgres at start before giving up. */
  STARTUP_TIMEOUT_MS: t.Integer({ minimum: 0, maximum: 600_000, default: 30_000 }),
  /** When set, GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: t.Optional(t.String({ minLength: 1 })),
  /** Bodies above this many bytes are refused with 413 before they are read whole. */
  MAX_BODY_BYTES: t.Integer({ minimum: 64, maximum: 1_048_576, default: 16_384 }),

  /** Postgres for keys and usage; unset = embedded PGlite under DATA_DIR. */
  DATABASE_URL: t.Optional(t.String({ pattern: "^postgres(ql)?://" })),
  DATA_DIR: t.String({ default: "./data" }),
  DATABASE_POOL_SIZE: t.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /** The most one connection attempt to Postgres may take before it counts as failed. */
  DATABASE_CONNECT_TIMEOUT_MS: t.Integer({ minimum: 100, maximum: 60_000, default: 2000 }),

  UPSTASH_REDIS_REST_URL: t.Optional(t.String({ pattern: "^https?://" })),
  UPSTASH_REDIS_REST_TOKEN: t.Optional(t.String({ minLength: 1 })),
  /** Plain Redis (`redis://` or `rediss://`) for self-hosters; Upstash wins when both are set. */
  REDIS_URL: t.Optional(t.String({ pattern: "^rediss?://" })),
  /** Longest wait for one Redis/Upstash command before it counts as failed. */
  REDIS_TIMEOUT_MS: t.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
  /** Prepended to every key this service writes to Redis/Upstash, so environments can share one. */
  STORE_KEY_PREFIX: t.String({ default: "" }),
  /** In-process copies in front of the cache table used when no Redis is configured. */
  MEMORY_CACHE_MAX_ENTRIES: t.Integer({ minimum: 100, default: 100_000 }),
  /** Rows of the cache table (VAT answers and their last-known-good copies) when no Redis is configured. */
  DATABASE_CACHE_MAX_ENTRIES: t.Integer({ minimum: 100, default: 1_000_000 }),

  /** How long a resolved API key is trusted without asking the database; bounds revocation delay. */
  KEY_CACHE_TTL_MS: t.Integer({ minimum: 0, maximum: 60_000, default: 5000 }),
  /** Shared secret of the marketplace gateway; unset = the gateway route is off. */
  GATEWAY_PROXY_SECRET: t.Optional(t.String({ minLength: 16 })),
  GATEWAY_RATE_LIMIT_PER_MINUTE: t.Integer({ minimum: 1, default: 600 }),

  /** VIES host; the real service paths are appended to it. */
  VIES_BASE_URL: t.String({ pattern: "^https?://", default: "https://ec.europa.eu" }),
  /** Which VIES door checks go through: `auto` (SOAP, then REST when the SOAP door fails), `soap` or `rest`. */
  VIES_PROTOCOL: oneOf(VIES_PROTOCOLS, "auto"),
  /** The most one VIES call may take, both doors together when the REST door stands in for SOAP. */
  VIES_TIMEOUT_MS: t.Integer({ minimum: 100, maximum: 120_000, default: 6000 }),
  /** Our own EU VAT number: switches to checkVatApprox and returns consultation numbers; checked like any VAT input. */
  VIES_REQUESTER_VAT: t.Optional(t.String()),
  /** Upstream calls in flight per member state, so our bursts never trip VIES's own limits. */
  VIES_MAX_CONCURRENT_PER_STATE: t.Integer({ minimum: 1, maximum: 100, default: 4 }),
  /**
   * With Redis or a shared Postgres, how long a slot of that cap is held without being renewed
   * (its holder renews it every third of this): a dead instance's slots come back this much later.
   */
  VIES_SLOT_LEASE_MS: t.Integer({ minimum: 300, maximum: 120_000, default: 10_000 }),
  /** The most one VAT answer may take, retries and waiting for a slot included. */
  VAT_DEADLINE_MS: t.Integer({ minimum: 200, maximum: 120_000, default: 8000 }),
  /** With a last-known-good copy, how long to wait for the authority before serving the copy. */
  VAT_STALE_AFTER_MS: t.Integer({ minimum: 100, maximum: 120_000, default: 2000 }),
  VAT_CACHE_TTL_SECONDS: t.Integer({ minimum: 1, default: 86_400 }),
  VAT_LKG_TTL_SECONDS: t.Integer({ minimum: 1, default: 2_592_000 }),
  /** The most a cache read or write may add to a request before it counts as a cache outage. */
  CACHE_TIMEOUT_MS: t.Integer({ minimum: 5, maximum: 10_000, default: 150 }),
  STATUS_CACHE_TTL_SECONDS: t.Integer({ minimum: 1, default: 60 }),

  /** Items one batch may hold. */
  BATCH_MAX_ITEMS: t.Integer({ minimum: 1, maximum: 100_000, default: 10_000 }),
  /** Bytes a POST /batches body may have (JSON or CSV). */
  BATCH_MAX_BYTES: t.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 4 * 1024 * 1024 }),
  /** How long a batch item whose member state fails is retried, from its first failure. */
  BATCH_RETRY_WINDOW_SECONDS: t.Integer({ minimum: 1, maximum: 7 * 86_400, default: 3600 }),
  /** Batch items one instance works on at the same time. */
  BATCH_CONCURRENCY: t.Integer({ minimum: 1, maximum: 1000, default: 128 }),
  /**
   * How long a claim holds a batch item (renewed while it is worked on) or a webhook message (at
   * least twice WEBHOOK_TIMEOUT_MS, since an attempt is not renewed): after a crash, what it held
   * is taken up again this much later (at once on the embedded database).
   */
  BATCH_LEASE_SECONDS: t.Integer({ minimum: 2, maximum: 3600, default: 60 }),
  /** How often an idle instance looks for batch work (and webhook messages) in the database. */
  BATCH_POLL_MS: t.Integer({ minimum: 10, maximum: 60_000, default: 500 }),
  /** Monitors' checks one instance works on at the same time (behind batch items for VIES's slots). */
  MONITOR_CONCURRENCY: t.Integer({ minimum: 1, maximum: 1000, default: 64 }),
  /** Days a completed or cancelled batch, with its items, is kept. */
  BATCH_RETENTION_DAYS: t.Integer({ minimum: 1, default: 30 }),
  /** Days the record of a VAT check (GET /validations/{id}) is kept. */
  VALIDATION_RECORD_DAYS: t.Integer({ minimum: 1, default: 3650 }),
  /** How long the answer to a request with an `Idempotency-Key` is kept and replayed. */
  IDEMPOTENCY_TTL_HOURS: t.Integer({ minimum: 1, maximum: 720, default: 24 }),
  /** Accept plain http:// webhook URLs (tests, private networks). */
  WEBHOOK_ALLOW_HTTP: t.Boolean({ default: false }),
  /** Accept webhook URLs whose host is loopback, private, link-local or otherwise not public. */
  WEBHOOK_ALLOW_PRIVATE: t.Boolean({ default: false }),
  /** The most one webhook delivery attempt may take. */
  WEBHOOK_TIMEOUT_MS: t.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
  /**
   * The most connecting to a webhook's host may take (its name resolved, TLS included), within
   * WEBHOOK_TIMEOUT_MS; and resolving a `webhook_url`'s host when a route checks it.
   */
  WEBHOOK_CONNECT_TIMEOUT_MS: t.Integer({ minimum: 100, maximum: 60_000, default: 3000 }),
  /** Webhook delivery attempts one instance has in flight (at most 4 per key and 4 per host). */
  WEBHOOK_CONCURRENCY: t.Integer({ minimum: 1, maximum: 1000, default: 16 }),
  /** The delay before a webhook's first retry; it doubles per attempt, up to an hour. */
  WEBHOOK_BACKOFF_BASE_MS: t.Integer({ minimum: 100, maximum: 3_600_000, default: 5000 }),

  /** Check CHE numbers with the Swiss UID register (public, no credentials); off: answered service_unavailable. */
  CH_VAT_ENABLED: t.Boolean({ default: true }),
  CH_UID_BASE_URL: t.String({ pattern: "^https?://", default: "https://www.uid-wse.admin.ch" }),
  /** Calls to the UID register per minute, per instance: it refuses more with Request_limit_exceeded. */
  CH_UID_MAX_PER_MINUTE: t.Integer({ minimum: 1, maximum: 10_000, default: 20 }),
  /** Check NO numbers with the Norwegian Register of Legal Entities (public, no credentials). */
  NO_VAT_ENABLED: t.Boolean({ default: true }),
  NO_BRREG_BASE_URL: t.String({ pattern: "^https?://", default: "https://data.brreg.no" }),

  UK_VAT_ENABLED: t.Boolean({ default: false }),
  UK_VAT_BASE_URL: t.String({ pattern: "^https?://", default: "https://api.service.hmrc.gov.uk" }),
  UK_VAT_CLIENT_ID: t.Optional(t.String({ minLength: 1 })),
  UK_VAT_CLIENT_SECRET: t.Optional(t.String({ minLength: 1 })),
  /** Our own UK VAT number: adds HMRC consultation numbers. */
  UK_VAT_REQUESTER_VRN: t.Optional(t.String({ pattern: "^(GB)?[0-9 ]{9,15}$" })),
});

export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Reads the configuration from an environment map. Unset and empty variables take their
 * defaults; a malformed value throws a ConfigError naming the variable and the rule it broke.
 */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== "") raw[key] = value.trim();
  }
  const withDefaults = Value.Default(ConfigSchema, raw);
  const converted = Value.Convert(ConfigSchema, withDefaults);
  const problems = [...Value.Errors(ConfigSchema, converted)].map((error) => {
    const name = error.path.replace(/^\//, "");
    const given = env[name];
    const choices = (error.schema.anyOf as { const?: unknown }[] | undefined)?.map((option) => option.const);
    const rule = choices ? `expected one of ${choices.join(", ")}` : error.message;
    // URLs carry passwords and the other named settings are secrets: their values stay out
    // of the message, which ends up in logs.
    const secret = /URL|TOKEN|SECRET|CLIENT_ID/.test(name);
    const shown = given === undefined || secret ? "" : `=${JSON.stringify(given)}`;
    return `${name}${shown}: ${rule}`;
  });
  const config = converted as Config;
  if (config.UK_VAT_ENABLED && (!config.UK_VAT_CLIENT_ID || !config.UK_VAT_CLIENT_SECRET)) {
    problems.push("UK_VAT_ENABLED=true needs UK_VAT_CLIENT_ID and UK_VAT_CLIENT_SECRET");
  }
  if (Boolean(config.UPSTASH_REDIS_REST_URL) !== Boolean(config.UPSTASH_REDIS_REST_TOKEN)) {
    problems.push("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together");
  }
  if (config.VAT_LKG_TTL_SECONDS < config.VAT_CACHE_TTL_SECONDS) {
    problems.push("VAT_LKG_TTL_SECONDS must be at least VAT_CACHE_TTL_SECONDS");
  }
  if (config.VIES_REQUESTER_VAT !== undefined) {
    try {
      parseRequesterVat(config.VIES_REQUESTER_VAT);
    } catch (error) {
      problems.push(
        `VIES_REQUESTER_VAT=${JSON.stringify(env.VIES_REQUESTER_VAT)}: ${(error as Error).message}`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  return config;
}
