import { describe, expect, test } from "bun:test";
import type { UpstreamFault, UpstreamFaultCode } from "../../../src/vat/upstream.ts";
import { createViesClient } from "../../../src/vat/vies/client.ts";
import { startViesFake, VIES_FAULT_STRINGS, type ViesFaultString } from "../../fakes/vies.ts";
import { fakeForTests } from "../../support/fake-lifecycle.ts";
import { clientFor, fixedClock, GITHUB, NORMAL_ANSWER, TIMEOUT_MS } from "./harness.ts";

const fake = fakeForTests(startViesFake);

const options = { timeoutMs: TIMEOUT_MS };

const fault = (code: UpstreamFaultCode, detail: string, retryable: boolean): UpstreamFault => ({
  kind: "fault",
  code,
  detail,
  retryable,
  path: "soap",
});

const EXPECTED: Record<ViesFaultString, UpstreamFault> = {
  INVALID_INPUT: fault("invalid_input", "INVALID_INPUT", false),
  INVALID_REQUESTER_INFO: fault("service_unavailable", "INVALID_REQUESTER_INFO", false),
  SERVICE_UNAVAILABLE: fault("service_unavailable", "SERVICE_UNAVAILABLE", true),
  MS_UNAVAILABLE: fault("member_state_unavailable", "MS_UNAVAILABLE", false),
  TIMEOUT: fault("member_state_unavailable", "TIMEOUT", true),
  VAT_BLOCKED: fault("service_unavailable", "VAT_BLOCKED", false),
  IP_BLOCKED: fault("service_unavailable", "IP_BLOCKED", false),
  GLOBAL_MAX_CONCURRENT_REQ: fault("upstream_rate_limited", "GLOBAL_MAX_CONCURRENT_REQ", true),
  GLOBAL_MAX_CONCURRENT_REQ_TIME: fault("upstream_rate_limited", "GLOBAL_MAX_CONCURRENT_REQ_TIME", true),
  MS_MAX_CONCURRENT_REQ: fault("upstream_rate_limited", "MS_MAX_CONCURRENT_REQ", true),
  MS_MAX_CONCURRENT_REQ_TIME: fault("upstream_rate_limited", "MS_MAX_CONCURRENT_REQ_TIME", true),
  SERVER_BUSY: fault("service_unavailable", "SERVER_BUSY", true),
};

describe("SOAP faults never become verdicts", () => {
  for (const faultString of VIES_FAULT_STRINGS) {
    for (const status of [200, 500] as const) {
      test(`${faultString} with HTTP ${status}`, async () => {
        fake().setBehaviour("NL", { kind: "fault", fault: faultString, status });
        const { client } = clientFor(fake());
        expect(await client.check(GITHUB, options)).toEqual(EXPECTED[faultString]);
      });
    }
  }

  for (const faultString of ["MS_UNAVAILABLE", "MS_MAX_CONCURRENT_REQ", "INVALID_INPUT"] as const) {
    test(`${faultString} in the pre-2022 soap: shape (HTTP 500)`, async () => {
      fake().setBehaviour("*", { kind: "fault", fault: faultString, style: "soap" });
      const { client } = clientFor(fake());
      expect(await client.check(GITHUB, options)).toEqual(EXPECTED[faultString]);
    });
  }

  test("blocks are logged for operators", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "IP_BLOCKED" });
    const { client, events } = clientFor(fake());
    await client.check(GITHUB, options);
    expect(events).toEqual([
      {
        event: "vies.fault_needs_attention",
        fields: { fault: "IP_BLOCKED", httpStatus: 200, countryCode: "NL", path: "soap" },
      },
    ]);
  });

  test("INVALID_REQUESTER_INFO without a requester is not retried", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "INVALID_REQUESTER_INFO" });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, options)).toEqual(EXPECTED.INVALID_REQUESTER_INFO);
    expect(fake().calls.total).toBe(1);
  });

  test("an unknown fault: service_unavailable, not retryable, raw faultstring logged", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "SOMETHING_NEW" });
    const { client, events } = clientFor(fake());
    expect(await client.check(GITHUB, options)).toEqual(fault("service_unavailable", "UNKNOWN_FAULT", false));
    expect(events).toEqual([
      {
        event: "vies.fault_needs_attention",
        fields: { fault: "SOMETHING_NEW", httpStatus: 200, countryCode: "NL", path: "soap" },
      },
    ]);
  });

  test("the fake's own INVALID_INPUT for GB and for the ISO code GR", async () => {
    const { client } = clientFor(fake());
    expect(await client.check({ prefix: "GB", number: "123456789" }, options)).toEqual(
      EXPECTED.INVALID_INPUT,
    );
    expect(await client.check({ prefix: "GR", number: "094259216" }, options)).toEqual(
      EXPECTED.INVALID_INPUT,
    );
  });

  test("fail the next two calls, then answer", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "MS_UNAVAILABLE" }, { times: 2 });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, options)).toEqual(EXPECTED.MS_UNAVAILABLE);
    expect(await client.check(GITHUB, options)).toEqual(EXPECTED.MS_UNAVAILABLE);
    expect(await client.check(GITHUB, options)).toMatchObject({ kind: "verdict", valid: true });
  });
});

describe("outages that are not SOAP", () => {
  for (const status of [500, 502, 503, 504] as const) {
    test(`HTML ${status} page → service_unavailable HTTP_${status}`, async () => {
      fake().setBehaviour("NL", { kind: "html", status });
      const { client } = clientFor(fake());
      expect(await client.check(GITHUB, options)).toEqual(
        fault("service_unavailable", `HTTP_${status}`, false),
      );
    });
  }

  test("an HTML page with HTTP 200 is unparseable", async () => {
    fake().setBehaviour("NL", {
      kind: "body",
      status: 200,
      contentType: "text/html",
      body: "<html><body>Maintenance</body></html>",
    });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, options)).toEqual(fault("service_unavailable", "UNPARSEABLE", false));
  });

  test("a garbage body with HTTP 200 is unparseable", async () => {
    fake().setBehaviour("NL", {
      kind: "body",
      status: 200,
      contentType: "text/xml",
      body: "<<<\u0000 not xml",
    });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, options)).toEqual(fault("service_unavailable", "UNPARSEABLE", false));
  });

  test("a normal answer with HTTP 500 is not trusted as a verdict", async () => {
    fake().setBehaviour("NL", {
      kind: "body",
      status: 500,
      contentType: "text/xml; charset=UTF-8",
      body: NORMAL_ANSWER,
    });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, options)).toEqual(fault("service_unavailable", "HTTP_500", false));
  });

  test("a reset connection → service_unavailable NETWORK, retryable", async () => {
    fake().setBehaviour("NL", { kind: "reset" });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, options)).toEqual(fault("service_unavailable", "NETWORK", true));
  });

  test("a body cut short → NETWORK", async () => {
    fake().setBehaviour("NL", { kind: "truncate" });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, options)).toEqual(fault("service_unavailable", "NETWORK", true));
  });

  test("bytes that are not HTTP → NETWORK", async () => {
    fake().setBehaviour("NL", { kind: "garbage" });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, options)).toEqual(fault("service_unavailable", "NETWORK", true));
  });

  test("DNS failure → NETWORK", async () => {
    const client = createViesClient({
      baseUrl: "http://vies-fake.invalid",
      requesterVat: null,
      protocol: "soap",
      clock: fixedClock,
    });
    expect(await client.check(GITHUB, options)).toEqual(fault("service_unavailable", "NETWORK", true));
  });

  test("connection refused → NETWORK", async () => {
    const stopped = await startViesFake();
    await stopped.stop();
    const client = createViesClient({
      baseUrl: stopped.baseUrl,
      requesterVat: null,
      protocol: "soap",
      clock: fixedClock,
    });
    expect(await client.check(GITHUB, options)).toEqual(fault("service_unavailable", "NETWORK", true));
  });
});

describe("time limits", () => {
  test("a hanging VIES → our timeout → member_state_unavailable CLIENT_TIMEOUT, retryable", async () => {
    fake().setBehaviour("NL", { kind: "hang" });
    const { client } = clientFor(fake());
    const started = performance.now();
    expect(await client.check(GITHUB, { timeoutMs: 200 })).toEqual(
      fault("member_state_unavailable", "CLIENT_TIMEOUT", true),
    );
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test("headers sent but the body never comes → CLIENT_TIMEOUT", async () => {
    fake().setBehaviour("NL", { kind: "stall" });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, { timeoutMs: 200 })).toEqual(
      fault("member_state_unavailable", "CLIENT_TIMEOUT", true),
    );
  });

  test("latency beyond the timeout → CLIENT_TIMEOUT", async () => {
    fake().setLatency(1_000);
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, { timeoutMs: 150 })).toEqual(
      fault("member_state_unavailable", "CLIENT_TIMEOUT", true),
    );
  });

  test("the requester retry shares the original deadline", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "INVALID_REQUESTER_INFO" }, { times: 1 });
    fake().setBehaviour("NL", { kind: "hang" });
    const { client } = clientFor(fake(), "IE6388047V");
    const started = performance.now();
    expect(await client.check(GITHUB, { timeoutMs: 300 })).toEqual(
      fault("member_state_unavailable", "CLIENT_TIMEOUT", true),
    );
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  test("the caller's abort → a fault, not an exception", async () => {
    fake().setBehaviour("NL", { kind: "hang" });
    const { client } = clientFor(fake());
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);
    expect(await client.check(GITHUB, { timeoutMs: TIMEOUT_MS, signal: caller.signal })).toEqual(
      fault("service_unavailable", "ABORTED", false),
    );
  });

  test("an already aborted signal → ABORTED", async () => {
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, { timeoutMs: TIMEOUT_MS, signal: AbortSignal.abort() })).toEqual(
      fault("service_unavailable", "ABORTED", false),
    );
  });

  test("a caller signal that fires after our timeout still reads as CLIENT_TIMEOUT", async () => {
    fake().setBehaviour("NL", { kind: "hang" });
    const { client } = clientFor(fake());
    expect(await client.check(GITHUB, { timeoutMs: 100, signal: AbortSignal.timeout(2_000) })).toEqual(
      fault("member_state_unavailable", "CLIENT_TIMEOUT", true),
    );
  });
});

describe("member-state concurrency limit", () => {
  test("more calls in flight than VIES allows → upstream_rate_limited for the excess", async () => {
    fake().setConcurrencyLimit("DE", 2);
    fake().setLatency({ DE: 300 });
    const { client } = clientFor(fake());
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => client.check({ prefix: "DE", number: "811569869" }, options)),
    );
    expect(outcomes.filter((o) => o.kind === "verdict")).toHaveLength(2);
    expect(outcomes.filter((o) => o.kind === "fault")).toEqual(
      Array.from({ length: 3 }, () => EXPECTED.MS_MAX_CONCURRENT_REQ),
    );
    expect(fake().calls.maxInFlight.DE).toBeGreaterThan(2);
  });
});
