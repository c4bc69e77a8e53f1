import { afterEach, describe, expect, test } from "bun:test";
import { createUkVatClient } from "../../../src/vat/uk/client.ts";
import type { UpstreamOutcome } from "../../../src/vat/upstream.ts";
import { manualClock } from "../../support/manual-clock.ts";
import { CLIENT_ID, CLIENT_SECRET, type Harness, SANDBOX_VRN, START, startHarness } from "./harness.ts";

let harness: Harness;
afterEach(() => harness.fake.stop());

const fault = (code: string, detail: string, retryable: boolean): UpstreamOutcome =>
  ({ kind: "fault", code, detail, retryable }) as UpstreamOutcome;

describe("credentials and configuration", () => {
  test("wrong client credentials: service_unavailable, no lookup, logged as an operator problem", async () => {
    harness = startHarness({ clientSecret: "not-the-secret" });
    expect(await harness.check(SANDBOX_VRN)).toEqual(
      fault("service_unavailable", "TOKEN_HTTP_401_invalid_client", false),
    );
    expect(harness.fake.calls).toEqual({ token: 1, lookup: 0 });
    const logged = harness.logged().find((event) => event.event === "hmrc_token_refused");
    expect(logged?.level).toBe("error");
    expect(logged?.reason).toContain("invalid client id or secret");
    expect(JSON.stringify(harness.logged())).not.toContain("not-the-secret");
  });

  test("a failed token request is not cached: the next check asks again", async () => {
    harness = startHarness();
    harness.fake.setBehaviour("token", "unavailable", { times: 1 });
    expect(await harness.check(SANDBOX_VRN)).toEqual(
      fault("service_unavailable", "TOKEN_HTTP_503_SERVER_ERROR", true),
    );
    const outcome = await harness.check(SANDBOX_VRN);
    expect(outcome.kind === "verdict" && outcome.valid).toBe(true);
    expect(harness.fake.calls.token).toBe(2);
  });

  test("tokens refused even after a refresh: one retry only, then service_unavailable", async () => {
    harness = startHarness();
    harness.fake.setBehaviour("lookup", "reject_tokens");
    expect(await harness.check(SANDBOX_VRN)).toEqual(
      fault("service_unavailable", "HTTP_401_INVALID_CREDENTIALS", false),
    );
    expect(harness.fake.calls).toEqual({ token: 2, lookup: 2 });
    expect(harness.logged().some((event) => event.event === "hmrc_token_refused_after_refresh")).toBe(true);
  });

  test("an application not subscribed to the API: service_unavailable, logged", async () => {
    harness = startHarness();
    harness.fake.setBehaviour("lookup", "not_subscribed");
    expect(await harness.check(SANDBOX_VRN)).toEqual(
      fault("service_unavailable", "HTTP_403_RESOURCE_FORBIDDEN", false),
    );
    const logged = harness.logged().find((event) => event.event === "hmrc_configuration_problem");
    expect(logged?.reason).toContain("not subscribed");
  });

  test("a requester VRN HMRC does not know: service_unavailable, never the target's fault", async () => {
    harness = startHarness({ requesterVrn: "999999973" });
    expect(await harness.check(SANDBOX_VRN)).toEqual(
      fault("service_unavailable", "HTTP_403_INVALID_REQUEST", false),
    );
    expect(harness.logged().find((event) => event.event === "hmrc_configuration_problem")?.reason).toContain(
      "requesterVrn does not match a registered company",
    );
  });

  test("a base URL that is not HMRC's API: service_unavailable, never valid: false", async () => {
    harness = startHarness();
    const client = createUkVatClient({
      baseUrl: `${harness.fake.baseUrl}/wrong-prefix`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clock: manualClock(START),
    });
    const outcome = await client.check({ prefix: "GB", number: SANDBOX_VRN }, { timeoutMs: 2_000 });
    expect(outcome.kind).toBe("fault");
    expect(outcome.kind === "fault" && outcome.code).toBe("service_unavailable");
  });

  test("misconfiguration is refused at construction", () => {
    const base = {
      baseUrl: "http://127.0.0.1:1",
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clock: manualClock(START),
    };
    expect(() => createUkVatClient({ ...base, clientId: " " })).toThrow("client id and client secret");
    expect(() => createUkVatClient({ ...base, clientSecret: "" })).toThrow("client id and client secret");
    expect(() => createUkVatClient({ ...base, requesterVrn: "GB12345" })).toThrow("9 or 12 digits");
    expect(() => createUkVatClient({ ...base, requesterVrn: "GBGD001" })).toThrow("9 or 12 digits");
  });
});

describe("input HMRC cannot check", () => {
  test("GD/HA and other non-digit forms are invalid_input without any call", async () => {
    harness = startHarness();
    for (const number of ["GD001", "HA500", "12345678", "1234567890", "12345678901X", "553557881/../x"]) {
      expect(await harness.check(number)).toEqual(fault("invalid_input", "UNCHECKABLE_VRN", false));
    }
    expect(harness.fake.calls).toEqual({ token: 0, lookup: 0 });
  });

  test("a prefix other than GB is a caller bug, not the user's input", async () => {
    harness = startHarness();
    const outcome = await harness.client.check({ prefix: "XI", number: SANDBOX_VRN }, { timeoutMs: 2_000 });
    expect(outcome).toEqual(fault("service_unavailable", "UNSUPPORTED_PREFIX", false));
    expect(harness.fake.calls).toEqual({ token: 0, lookup: 0 });
  });
});

describe("throttling and outages", () => {
  test("429 on the lookup is upstream_rate_limited, retryable", async () => {
    harness = startHarness();
    harness.fake.setBehaviour("lookup", "throttled");
    expect(await harness.check(SANDBOX_VRN)).toEqual(
      fault("upstream_rate_limited", "HTTP_429_MESSAGE_THROTTLED_OUT", true),
    );
  });

  test("429 on the token endpoint is upstream_rate_limited too", async () => {
    harness = startHarness();
    harness.fake.setBehaviour("token", "throttled");
    expect(await harness.check(SANDBOX_VRN)).toEqual(
      fault("upstream_rate_limited", "TOKEN_HTTP_429_MESSAGE_THROTTLED_OUT", true),
    );
  });

  test("server errors and HTML pages are service_unavailable", async () => {
    harness = startHarness();
    const cases = [
      ["internal_error", fault("service_unavailable", "HTTP_500_INTERNAL_SERVER_ERROR", false)],
      ["unavailable", fault("service_unavailable", "HTTP_503_SERVER_ERROR", true)],
      ["html_error", fault("service_unavailable", "HTTP_502", true)],
      ["html_ok", fault("service_unavailable", "UNPARSEABLE", false)],
    ] as const;
    for (const [behaviour, expected] of cases) {
      harness.fake.setBehaviour("lookup", behaviour, { times: 1 });
      expect(await harness.check(SANDBOX_VRN)).toEqual(expected);
    }
  });

  test("an HTML page from the token endpoint is service_unavailable", async () => {
    harness = startHarness();
    harness.fake.setBehaviour("token", "html_ok");
    expect(await harness.check(SANDBOX_VRN)).toEqual(
      fault("service_unavailable", "TOKEN_UNPARSEABLE", false),
    );
  });

  test("nothing listening is NETWORK, retryable", async () => {
    harness = startHarness();
    const baseUrl = harness.fake.baseUrl;
    await harness.fake.stop();
    const client = createUkVatClient({
      baseUrl,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clock: manualClock(START),
    });
    expect(await client.check({ prefix: "GB", number: SANDBOX_VRN }, { timeoutMs: 2_000 })).toEqual(
      fault("service_unavailable", "TOKEN_NETWORK", true),
    );
  });

  test("a connection lost during the lookup is NETWORK", async () => {
    harness = startHarness();
    await harness.check(SANDBOX_VRN);
    const baseUrl = harness.fake.baseUrl;
    await harness.fake.stop();
    expect(baseUrl).toStartWith("http://127.0.0.1:");
    expect(await harness.check(SANDBOX_VRN)).toEqual(fault("service_unavailable", "NETWORK", true));
  });
});

describe("time limits", () => {
  test("a lookup that never answers ends at the caller's deadline as TIMEOUT, retryable", async () => {
    harness = startHarness();
    harness.fake.setBehaviour("lookup", "hang");
    const started = performance.now();
    expect(await harness.check(SANDBOX_VRN, { timeoutMs: 150 })).toEqual(
      fault("service_unavailable", "TIMEOUT", true),
    );
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1_000);
  });

  test("a body that stalls half-way also ends at the deadline", async () => {
    harness = startHarness();
    harness.fake.setBehaviour("lookup", "stall_body");
    const started = performance.now();
    expect(await harness.check(SANDBOX_VRN, { timeoutMs: 150 })).toEqual(
      fault("service_unavailable", "TIMEOUT", true),
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("a hanging token endpoint ends at the caller's deadline; the token's own limit frees later callers", async () => {
    harness = startHarness({ tokenTimeoutMs: 300 });
    harness.fake.setBehaviour("token", "hang", { times: 1 });
    expect(await harness.check(SANDBOX_VRN, { timeoutMs: 100 })).toEqual(
      fault("service_unavailable", "TIMEOUT", true),
    );
    // Still waiting on the same shared token request, which gives up at its own limit.
    expect(await harness.check(SANDBOX_VRN, { timeoutMs: 2_000 })).toEqual(
      fault("service_unavailable", "TOKEN_TIMEOUT", true),
    );
    const outcome = await harness.check(SANDBOX_VRN, { timeoutMs: 2_000 });
    expect(outcome.kind === "verdict" && outcome.valid).toBe(true);
    expect(harness.fake.calls.token).toBe(2);
  });

  test("a caller's abort is ABORTED, not retryable, and no request is sent", async () => {
    harness = startHarness();
    const controller = new AbortController();
    controller.abort();
    expect(await harness.check(SANDBOX_VRN, { signal: controller.signal })).toEqual(
      fault("service_unavailable", "ABORTED", false),
    );
    expect(harness.fake.calls.lookup).toBe(0);
  });

  test("an abort during a hanging lookup is ABORTED", async () => {
    harness = startHarness();
    harness.fake.setBehaviour("lookup", "hang");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await harness.check(SANDBOX_VRN, { timeoutMs: 2_000, signal: controller.signal })).toEqual(
      fault("service_unavailable", "ABORTED", false),
    );
  });
});

describe("never throws", () => {
  test("a malformed base URL is a fault, not an exception", async () => {
    harness = startHarness();
    const client = createUkVatClient({
      baseUrl: "not a url",
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clock: manualClock(START),
    });
    expect(await client.check({ prefix: "GB", number: SANDBOX_VRN }, { timeoutMs: 500 })).toEqual(
      fault("service_unavailable", "TOKEN_NETWORK", true),
    );
  });

  test("every fault the fake can produce, on either endpoint, resolves to a fault", async () => {
    harness = startHarness({ tokenTimeoutMs: 80 });
    const behaviours = [
      "throttled",
      "internal_error",
      "unavailable",
      "html_error",
      "html_ok",
      "not_subscribed",
      "reject_tokens",
      "hang",
      "stall_body",
    ] as const;
    for (const endpoint of ["token", "lookup"] as const) {
      for (const behaviour of behaviours) {
        harness.fake.setBehaviour(endpoint, behaviour);
        const outcome = await harness.check(SANDBOX_VRN, { timeoutMs: 150 });
        expect(outcome.kind).toBe("fault");
        expect(outcome.kind === "fault" && outcome.detail).not.toBe("CLIENT_ERROR");
        harness.fake.setBehaviour(endpoint, null);
      }
    }
  });
});
