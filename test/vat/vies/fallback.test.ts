import { describe, expect, test } from "bun:test";
import type { FetchLike } from "../../../src/vat/transport.ts";
import { createViesClient } from "../../../src/vat/vies/client.ts";
import { startViesFake, VIES_SERVICE_PATH, type ViesBehaviour } from "../../fakes/vies.ts";
import { fakeForTests } from "../../support/fake-lifecycle.ts";
import { clientFor, fixedClock, GITHUB, type LoggedEvent, NORMAL_ANSWER, TIMEOUT_MS } from "./harness.ts";

/** `VIES_PROTOCOL=auto`: SOAP first, the REST door only when the SOAP door itself failed. */
const fake = fakeForTests(startViesFake);

const options = { timeoutMs: TIMEOUT_MS };
const auto = (requesterVat: string | null = null) => clientFor(fake(), requesterVat, undefined, "auto");

/** A fetch whose calls to the SOAP path fail as `error` does before any byte of HTTP. */
function soapUnreachable(error: Error): FetchLike {
  return (url, init) => (url.endsWith(VIES_SERVICE_PATH) ? Promise.reject(error) : fetch(url, init));
}

describe("a failure of the SOAP door itself: asked again through REST", () => {
  const DOOR_FAILURES: [string, ViesBehaviour][] = [
    ["the connection reset", { kind: "reset" }],
    ["bytes that are not HTTP", { kind: "garbage" }],
    ["a body cut short", { kind: "truncate" }],
    ["WebLogic's HTML 500 page", { kind: "html", status: 500 }],
    ["a proxy's 502", { kind: "html", status: 502 }],
    ["a proxy's 503", { kind: "html", status: 503 }],
    ["a proxy's 504", { kind: "html", status: 504 }],
    [
      "a 500 with a normal answer but no fault",
      {
        kind: "body",
        status: 500,
        contentType: "text/xml; charset=UTF-8",
        body: NORMAL_ANSWER,
      },
    ],
    [
      "an HTML page with HTTP 200",
      { kind: "body", status: 200, contentType: "text/html", body: "<html>down</html>" },
    ],
    ["a 404 page", { kind: "body", status: 404, contentType: "text/html", body: "<html>Not Found</html>" }],
    [
      "JSON where SOAP was expected",
      { kind: "body", status: 200, contentType: "application/json", body: "{}" },
    ],
  ];
  for (const [name, behaviour] of DOOR_FAILURES) {
    test(`${name} → the REST door's verdict`, async () => {
      fake().setBehaviour("NL", behaviour, { door: "soap" });
      const { client } = auto();
      expect(await client.check(GITHUB, options)).toMatchObject({
        kind: "verdict",
        valid: true,
        name: "GITHUB B.V.",
        path: "rest",
      });
      expect(fake().calls.byDoor).toEqual({ soap: 1, rest: 1 });
    });
  }

  test("connection refused, a TLS failure: the REST door's verdict", async () => {
    for (const error of [
      Object.assign(new TypeError("fetch failed"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("unable to verify the first certificate"), {
        code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      }),
    ]) {
      const client = createViesClient({
        baseUrl: fake().baseUrl,
        requesterVat: null,
        clock: fixedClock,
        fetch: soapUnreachable(error),
      });
      expect(await client.check(GITHUB, options)).toMatchObject({
        kind: "verdict",
        valid: true,
        path: "rest",
      });
    }
    expect(fake().calls.byDoor).toEqual({ soap: 0, rest: 2 });
  });

  test("with a requester and trader details: the REST call carries them, and the answer is the same", async () => {
    fake().setBehaviour("ES", { kind: "reset" }, { door: "soap" });
    const { client } = auto("DE136695976");
    const trader = { name: "Rodrisa Automoviles", city: "Madrid" };
    expect(await client.check({ prefix: "ES", number: "B83891812", trader }, options)).toMatchObject({
      valid: true,
      name: null,
      consultationNumber: expect.stringMatching(/^WAPI/),
      traderMatch: { name: "match", city: "mismatch" },
      path: "rest",
    });
    expect(fake().calls.log.at(-1)).toMatchObject({
      door: "rest",
      requester: { countryCode: "DE", vatNumber: "136695976" },
      trader,
    });
  });

  test("both doors down: the REST door's fault, retryable as it says", async () => {
    fake().setBehaviour("NL", { kind: "reset" }, { door: "soap" });
    fake().setBehaviour("NL", { kind: "html", status: 503 }, { door: "rest" });
    const { client } = auto();
    expect(await client.check(GITHUB, options)).toEqual({
      kind: "fault",
      code: "service_unavailable",
      detail: "HTTP_503",
      retryable: false,
      path: "rest",
    });
  });

  test("the REST call has what is left of the same deadline, not one of its own", async () => {
    fake().setLatency({ NL: 250 });
    fake().setBehaviour("NL", { kind: "html", status: 503 }, { door: "soap" });
    fake().setBehaviour("NL", { kind: "hang" }, { door: "rest" });
    const { client } = auto();
    const started = performance.now();
    expect(await client.check(GITHUB, { timeoutMs: 600 })).toMatchObject({
      kind: "fault",
      code: "member_state_unavailable",
      detail: "CLIENT_TIMEOUT",
      path: "rest",
    });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(590);
    expect(elapsed).toBeLessThan(600 + 250);
  });

  test("the SOAP door's failure is logged once, and its recovery once", async () => {
    const { client, events } = auto();
    fake().setBehaviour("NL", { kind: "html", status: 502 }, { door: "soap" });
    for (let i = 0; i < 3; i += 1) await client.check(GITHUB, options);
    fake().clearBehaviour("NL");
    for (let i = 0; i < 2; i += 1) await client.check(GITHUB, options);
    expect(events).toEqual<LoggedEvent[]>([
      { event: "vies.soap_door_failed", fields: { detail: "HTTP_502", countryCode: "NL" } },
      { event: "vies.soap_door_recovered", fields: { countryCode: "NL" } },
    ]);
    expect(fake().calls.byDoor).toEqual({ soap: 5, rest: 3 });
  });
});

describe("a failure that is about the member state or the check: not asked again", () => {
  const NOT_DOOR_FAILURES: [string, ViesBehaviour][] = [
    ["MS_UNAVAILABLE", { kind: "fault", fault: "MS_UNAVAILABLE" }],
    ["TIMEOUT", { kind: "fault", fault: "TIMEOUT" }],
    ["MS_MAX_CONCURRENT_REQ", { kind: "fault", fault: "MS_MAX_CONCURRENT_REQ" }],
    ["INVALID_INPUT", { kind: "fault", fault: "INVALID_INPUT" }],
    ["SERVICE_UNAVAILABLE", { kind: "fault", fault: "SERVICE_UNAVAILABLE" }],
    ["IP_BLOCKED", { kind: "fault", fault: "IP_BLOCKED" }],
    ["a fault with HTTP 500", { kind: "fault", fault: "MS_UNAVAILABLE", status: 500 }],
    ["a fault in the pre-2022 shape", { kind: "fault", fault: "GLOBAL_MAX_CONCURRENT_REQ", style: "soap" }],
    [
      "an envelope with neither fault nor answer",
      {
        kind: "body",
        status: 200,
        contentType: "text/xml",
        body: '<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body/></env:Envelope>',
      },
    ],
  ];
  for (const [name, behaviour] of NOT_DOOR_FAILURES) {
    test(name, async () => {
      fake().setBehaviour("NL", behaviour, { door: "soap" });
      const { client } = auto();
      expect(await client.check(GITHUB, options)).toMatchObject({ kind: "fault", path: "soap" });
      expect(fake().calls.byDoor).toEqual({ soap: 1, rest: 0 });
    });
  }

  test("our own deadline passing: the member state is slow, whichever door", async () => {
    fake().setBehaviour("NL", { kind: "hang" }, { door: "soap" });
    const { client } = auto();
    expect(await client.check(GITHUB, { timeoutMs: 200 })).toMatchObject({
      code: "member_state_unavailable",
      detail: "CLIENT_TIMEOUT",
      path: "soap",
    });
    expect(fake().calls.byDoor.rest).toBe(0);
  });

  test("the caller giving up", async () => {
    const { client } = auto();
    expect(await client.check(GITHUB, { timeoutMs: TIMEOUT_MS, signal: AbortSignal.abort() })).toMatchObject({
      detail: "ABORTED",
      path: "soap",
    });
    expect(fake().calls.byDoor.rest).toBe(0);
  });
});

describe("one door only", () => {
  test("`soap`: a failing SOAP door is the answer", async () => {
    fake().setBehaviour("NL", { kind: "reset" }, { door: "soap" });
    const { client } = clientFor(fake(), null, undefined, "soap");
    expect(await client.check(GITHUB, options)).toMatchObject({ detail: "NETWORK", path: "soap" });
    expect(fake().calls.byDoor).toEqual({ soap: 1, rest: 0 });
  });

  test("`rest`: the SOAP door is never asked, down or not", async () => {
    fake().setBehaviour("NL", { kind: "html", status: 503 }, { door: "soap" });
    const { client } = clientFor(fake(), null, undefined, "rest");
    expect(await client.check(GITHUB, options)).toMatchObject({ kind: "verdict", path: "rest" });
    fake().setBehaviour("NL", { kind: "reset" }, { door: "rest" });
    expect(await client.check(GITHUB, options)).toMatchObject({ detail: "NETWORK", path: "rest" });
    expect(fake().calls.byDoor).toEqual({ soap: 0, rest: 2 });
  });

  test("auto with the REST door down: SOAP answers, REST is not asked", async () => {
    fake().setBehaviour("NL", { kind: "reset" }, { door: "rest" });
    const { client } = auto();
    expect(await client.check(GITHUB, options)).toMatchObject({ kind: "verdict", path: "soap" });
    expect(fake().calls.byDoor).toEqual({ soap: 1, rest: 0 });
  });
});
