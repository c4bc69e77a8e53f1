import { describe, expect, test } from "bun:test";
import { ConfigError, parseConfig } from "../src/config.ts";

function problemsOf(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the configuration was accepted");
}

describe("configuration", () => {
  test("nothing set: the documented defaults", () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      LOG_LEVEL: "info",
      DATA_DIR: "./data",
      MAX_BODY_BYTES: 16_384,
      KEY_CACHE_TTL_MS: 5000,
      VIES_BASE_URL: "https://ec.europa.eu",
      VIES_PROTOCOL: "auto",
      VAT_CACHE_TTL_SECONDS: 86_400,
      VAT_LKG_TTL_SECONDS: 2_592_000,
      STATUS_CACHE_TTL_SECONDS: 60,
      UK_VAT_ENABLED: false,
    });
    expect(config.DATABASE_URL).toBeUndefined();
  });

  test("values are converted from their environment strings; empty means unset", () => {
    const config = parseConfig({ PORT: " 8080 ", UK_VAT_ENABLED: "false", DATABASE_URL: "" });
    expect([config.PORT, config.UK_VAT_ENABLED, config.DATABASE_URL]).toEqual([8080, false, undefined]);
  });

  test("a bad value is named with the rule it broke; every problem is reported at once", () => {
    const message = problemsOf({ PORT: "eighty", LOG_LEVEL: "loud", VAT_LKG_TTL_SECONDS: "10" });
    expect(message).toContain('PORT="eighty"');
    expect(message).toContain('LOG_LEVEL="loud": expected one of debug, info, warn, error, silent');
    expect(message).toContain("VAT_LKG_TTL_SECONDS must be at least VAT_CACHE_TTL_SECONDS");
  });

  test("VIES_PROTOCOL: auto, soap or rest", () => {
    expect(
      ["soap", "rest", "auto"].map((value) => parseConfig({ VIES_PROTOCOL: value }).VIES_PROTOCOL),
    ).toEqual(["soap", "rest", "auto"]);
    expect(problemsOf({ VIES_PROTOCOL: "json" })).toContain(
      'VIES_PROTOCOL="json": expected one of auto, soap, rest',
    );
  });

  test("secrets and URLs are never echoed", () => {
    const message = problemsOf({ DATABASE_URL: "mysql://user:hunter2@db/x", GATEWAY_PROXY_SECRET: "short" });
    expect(message).toContain("DATABASE_URL:");
    expect(message).toContain("GATEWAY_PROXY_SECRET:");
    expect(message).not.toContain("hunter2");
    expect(message).not.toContain("short");
  });

  test("settings that only work together", () => {
    expect(problemsOf({ UK_VAT_ENABLED: "true" })).toContain("UK_VAT_CLIENT_ID and UK_VAT_CLIENT_SECRET");
    expect(problemsOf({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" })).toContain("must be set together");
  });

  test("the requester VAT number is checked like any VAT input, at start", () => {
    expect(parseConfig({ VIES_REQUESTER_VAT: "gr 094 259 216" }).VIES_REQUESTER_VAT).toBe("gr 094 259 216");
    expect(problemsOf({ VIES_REQUESTER_VAT: "DE123456789" })).toContain(
      'VIES_REQUESTER_VAT="DE123456789": the requester VAT number is not valid: the check digit',
    );
    expect(problemsOf({ VIES_REQUESTER_VAT: "GB980780684" })).toContain("VIES does not check GB numbers");
  });
});
