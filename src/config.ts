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
