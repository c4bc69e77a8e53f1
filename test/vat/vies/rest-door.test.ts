import { describe, expect, test } from "bun:test";
import type { UpstreamFault } from "../../../src/vat/upstream.ts";
import { buildRestRequest, readRestReply } from "../../../src/vat/vies/rest-door.ts";
import { startViesFake, VIES_REST_CHECK_PATH } from "../../fakes/vies.ts";
import { fakeForTests } from "../../support/fake-lifecycle.ts";
import { clientFor, GITHUB, TIMEOUT_MS } from "./harness.ts";
import { REST_CHECK_VALID, REST_MS_UNAVAILABLE } from "./samples.ts";

const fake = fakeForTests(startViesFake);

const options = { timeoutMs: TIMEOUT_MS };
const restFault = (code: UpstreamFault["code"], detail: string): UpstreamFault => ({
  kind: "fault",
  code,
  detail,
  retryable: false,
  path: "rest",
});

describe("the check-vat-number request", () => {
  test("the number without its prefix; only the details given, under their REST names; the requester's two fields together", () => {
    expect(buildRestRequest({ prefix: "EL", number: "094259216" }, null)).toEqual({
      countryCode: "EL",
      vatNumber: "094259216",
    });
    expect(
      buildRestRequest(
        {
          prefix: "ES",
          number: "B83891812",
          trader: { name: "Rodrisa", postcode: "28430", companyType: "ES-1" },
        },
        { countryCode: "IE", vatNumber: "6388047V" },
      ),
    ).toEqual({
      countryCode: "ES",
      vatNumber: "B83891812",
      requesterMemberStateCode: "IE",
      requesterNumber: "6388047V",
      traderName: "Rodrisa",
      traderPostalCode: "28430",
      traderCompanyType: "ES-1",
    });
  });

  test("is sent as JSON to the REST path, read back by the fake as sent", async () => {
    const { client } = clientFor(fake(), "DE136695976", undefined, "rest");
    await client.check(
      { prefix: "ES", number: "B83891812", trader: { city: "Alcorcón", street: 'Avda. "Reina" Victoria' } },
      options,
    );
    expect(fake().calls.log).toEqual([
      {
        door: "rest",
        operation: "check-vat-number",
        countryCode: "ES",
        vatNumber: "B83891812",
        requester: { countryCode: "DE", vatNumber: "136695976" },
        trader: { city: "Alcorcón", street: 'Avda. "Reina" Victoria' },
        contentType: "application/json",
        soapAction: null,
      },
    ]);
  });
});

describe("readRestReply", () => {
  test("the published success: name and address from `name` and `address`; an empty identifier is none", () => {
    expect(readRestReply(200, REST_CHECK_VALID)).toEqual({
      kind: "answer",
      answer: {
        kind: "answer",
        valid: true,
        name: "NV OR De Vlaamse Radio- en Televisieomroeporganisatie",
        address: "Auguste Reyerslaan 52\n1030 Schaarbeek",
        requestIdentifier: null,
        traderMatch: {
          name: "not_processed",
          street: "not_processed",
          postcode: "not_processed",
          city: "not_processed",
          companyType: "not_processed",
        },
      },
    });
  });

  test("the trader fields only echo what was sent: never read as the record", () => {
    const body = JSON.stringify({
      valid: true,
      name: "---",
      address: "",
      traderName: "ACME SL",
      traderCity: "Madrid",
      traderNameMatch: "VALID",
      traderCityMatch: "INVALID",
      traderStreetMatch: null,
    });
    expect(readRestReply(200, body)).toEqual({
      kind: "answer",
      answer: {
        kind: "answer",
        valid: true,
        name: null,
        address: null,
        requestIdentifier: null,
        traderMatch: { name: "match", city: "mismatch" },
      },
    });
  });

  test("a byte-order mark before the body is no reason to fail", () => {
    expect(readRestReply(200, `\uFEFF${REST_CHECK_VALID}`)).toMatchObject({ kind: "answer" });
  });

  test("errors are found by their envelope, whatever the status", () => {
    expect(readRestReply(200, REST_MS_UNAVAILABLE)).toEqual({
      kind: "error",
      error: "MS_UNAVAILABLE",
      httpStatus: 200,
    });
    expect(readRestReply(500, '{"actionSucceed":false,"errorWrappers":[{"error":"VOW-ERR-1"}]}')).toEqual({
      kind: "error",
      error: "VOW-ERR-1",
      httpStatus: 500,
    });
    // Throttling has been seen beside `valid: null`: any errorWrappers is no verdict.
    expect(
      readRestReply(200, '{"valid":null,"errorWrappers":[{"error":"MS_MAX_CONCURRENT_REQ"}]}'),
    ).toMatchObject({
      error: "MS_MAX_CONCURRENT_REQ",
    });
    expect(readRestReply(200, '{"valid":true,"actionSucceed":false}')).toMatchObject({
      kind: "error",
      error: "",
    });
    expect(
      readRestReply(
        400,
        '{"actionSucceed":false,"errorWrappers":[{"error":"","message":"Country code is invalid"}]}',
      ),
    ).toMatchObject({ error: "Country code is invalid" });
  });

  test("no verdict without a 2xx and a boolean `valid`", () => {
    const unparseable = { kind: "failed", fault: { code: "service_unavailable", detail: "UNPARSEABLE" } };
    expect(readRestReply(502, "<html>Bad Gateway</html>")).toMatchObject({
      fault: { detail: "HTTP_502" },
      doorFailure: false,
    });
    expect(readRestReply(500, REST_CHECK_VALID)).toMatchObject({ fault: { detail: "HTTP_500" } });
    expect(readRestReply(200, '{"valid":"true"}')).toMatchObject(unparseable);
    expect(readRestReply(200, "[true]")).toMatchObject(unparseable);
    expect(readRestReply(200, '{"valid": tr')).toMatchObject(unparseable);
  });
});

describe("the REST door's own errors", () => {
  test("VOW-ERR-* with HTTP 400: our request refused, service_unavailable, logged for operators", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "VOW-ERR-11", status: 400 });
    const { client, events } = clientFor(fake(), null, undefined, "rest");
    expect(await client.check(GITHUB, options)).toEqual(restFault("service_unavailable", "VOW-ERR-11"));
    expect(events).toEqual([
      {
        event: "vies.fault_needs_attention",
        fields: { fault: "VOW-ERR-11", httpStatus: 400, countryCode: "NL", path: "rest" },
      },
    ]);
  });

  test("VOW-ERR-* otherwise: the platform failing, not retried, not alerted", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "VOW-ERR-1", status: 500 });
    const { client, events } = clientFor(fake(), null, undefined, "rest");
    expect(await client.check(GITHUB, options)).toEqual(restFault("service_unavailable", "VOW-ERR-1"));
    expect(events).toEqual([]);
  });

  test("IP_BLOCKED and INVALID_REQUESTER_INFO map as through SOAP", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "IP_BLOCKED" });
    const { client, events } = clientFor(fake(), "IE6388047V", undefined, "rest");
    expect(await client.check(GITHUB, options)).toEqual(restFault("service_unavailable", "IP_BLOCKED"));
    fake().setBehaviour("NL", { kind: "fault", fault: "INVALID_REQUESTER_INFO" });
    expect(await client.check(GITHUB, options)).toEqual(
      restFault("service_unavailable", "INVALID_REQUESTER_INFO"),
    );
    expect(events.map(({ event }) => event)).toEqual([
      "vies.fault_needs_attention",
      "vies.requester_rejected",
      "vies.fault_needs_attention",
    ]);
  });
});

describe("the fake's REST door refuses what VIES refuses", () => {
  const post = (body: unknown, contentType = "application/json") =>
    fetch(fake().baseUrl + VIES_REST_CHECK_PATH, {
      method: "POST",
      headers: { "Content-Type": contentType },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  test("one requester field without the other: HTTP 400, VOW-ERR-11", async () => {
    const response = await post({
      countryCode: "NL",
      vatNumber: "854265259B01",
      requesterNumber: "6388047V",
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ actionSucceed: false, errorWrappers: [{ error: "VOW-ERR-11" }] });
  });

  test("a requester number with its prefix: HTTP 200, INVALID_REQUESTER_INFO (R7)", async () => {
    const response = await post({
      countryCode: "NL",
      vatNumber: "854265259B01",
      requesterMemberStateCode: "IE",
      requesterNumber: "IE6388047V",
    });
    expect([response.status, await response.text()]).toEqual([
      200,
      '{\n  "actionSucceed" : false,\n  "errorWrappers" : [ {\n    "error" : "INVALID_REQUESTER_INFO"\n  } ]\n}',
    ]);
  });

  test("GB: HTTP 200 and the captured INVALID_INPUT body", async () => {
    const response = await post({ countryCode: "GB", vatNumber: "980780684" });
    expect((await response.json()) as unknown).toEqual({
      actionSucceed: false,
      errorWrappers: [{ error: "INVALID_INPUT" }],
    });
  });

  test("the number with its prefix is simply not registered (R17)", async () => {
    const response = await post({ countryCode: "IE", vatNumber: "IE6388047V" });
    expect(await response.json()).toMatchObject({ valid: false, vatNumber: "IE6388047V" });
  });

  test("a body it cannot bind: Spring's 400; another content type: 415", async () => {
    expect((await post("{not json")).status).toBe(400);
    expect((await post({ countryCode: 12 })).status).toBe(400);
    expect((await post({ countryCode: "NL", vatNumber: "854265259B01" }, "text/plain")).status).toBe(415);
  });
});
