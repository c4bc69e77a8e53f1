import { type Static, Type as t } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

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
  /** Bodies above this many bytes are refused with 413 before they are read whole. */
  MAX_BODY_BYTES: t.Integer({ minimum: 64, maximum: 1_048_576, default: 16_384 }),

  /** Postgres for keys and usage; unset = embedded PGlite under DATA_DIR. */
  DATABASE_URL: t.Optional(t.String({ pattern: "^postgres(ql)?://" })),
  DATA_DIR: t.String({ default: "./data" }),
  DATABASE_POOL_SIZE: t.Integer({ minimum: 1, maximum: 200, default: 10 }),

  UPSTASH_REDIS_REST_URL: t.Optional(t.String({ pattern: "^https?://" })),
  UPSTASH_REDIS_REST_TOKEN: t.Optional(t.String({ minLength: 1 })),
  /** Plain Redis (`redis://` or `rediss://`) for self-hosters; Upstash wins when both are set. */
  REDIS_URL: t.Optional(t.String({ pattern: "^rediss?://" })),
  /** Longest wait for one Redis/Upstash command before it counts as failed. */
  REDIS_TIMEOUT_MS: t.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
  /** Entries of the in-process cache used when no Redis is configured. */
  MEMORY_CACHE_MAX_ENTRIES: t.Integer({ minimum: 100, default: 100_000 }),

  /** How long a resolved API key is trusted without asking the database; bounds revocation delay. */
  KEY_CACHE_TTL_MS: t.Integer({ minimum: 0, maximum: 60_000, default: 5000 }),
  /** Shared secret of the marketplace gateway; unset = the gateway route is off. */
  GATEWAY_PROXY_SECRET: t.Optional(t.String({ minLength: 16 })),
  GATEWAY_RATE_LIMIT_PER_MINUTE: t.Integer({ minimum: 1, default: 600 }),
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
    return `${name}${given === undefined ? "" : `=${JSON.stringify(given)}`}: ${rule}`;
  });
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  return converted as Config;
}
