import { describe, expect, test } from "bun:test";
import {
  startViesFake,
  VIES_REST_CHECK_PATH,
  VIES_SERVICE_PATH,
  VIES_STATUS_PATH,
} from "../../fakes/vies.ts";
import { brusselsRequestDate, WEBLOGIC_500_PAGE } from "../../fakes/vies-wire.ts";
import { fakeForTests } from "../../support/fake-lifecycle.ts";
import {
  CHECK_VAT_APPROX_ES_MATCHING,
  CHECK_VAT_APPROX_INVALID,
  CHECK_VAT_APPROX_REQUEST,
  CHECK_VAT_APPROX_VALID,
  CHECK_VAT_INVALID,
  CHECK_VAT_REQUEST,
  CHECK_VAT_VALID,
  FAULT_MS_MAX_CONCURRENT_REQ,
  REST_CHECK_VALID,
  REST_MS_UNAVAILABLE,
} from "./samples.ts";

/** The fake's sanity: what it sends must match the recorded VIES bytes, so client tests mean something. */
const fake = fakeForTests(() =>
  // The day of the recordings, mid-morning in Brussels.
  startViesFake({ now: () => Date.UTC(2023, 7, 11, 8, 0) }),
);

const SOAP = { "Content-Type": "text/xml;charset=UTF-8", SOAPAction: '""' };

function post(body: string, headers: Record<string, string> = SOAP): Promise<Response> {
  return fetch(fake().baseUrl + VIES_SERVICE_PATH, { method: "POST", headers, body });
}

describe("answers byte for byte like the recordings", () => {
  test("checkVat valid, with VIES's headers", async () => {
    const response = await post(CHECK_VAT_REQUEST);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/xml; charset=UTF-8");
    expect(response.headers.get("server")).toBe("Europa");
    expect(await response.text()).toBe(CHECK_VAT_VALID);
  });

  test("checkVat not registered", async () => {
    const response = await post(CHECK_VAT_REQUEST.replace("854265259B01", "9999999"));
    expect(await response.text()).toBe(CHECK_VAT_INVALID);
  });

  test("checkVatApprox valid: same bytes apart from the fresh consultation number", async () => {
    const body = await (await post(CHECK_VAT_APPROX_REQUEST)).text();
    const identifier = /<ns2:requestIdentifier>(WAPI[A-Za-z0-9]{12})<\/ns2:requestIdentifier>/.exec(
      body,
    )?.[1];
    expect(identifier).toBeDefined();
    expect(body.replace(identifier ?? "", "WAPIAAAAYnkVx97D")).toBe(CHECK_VAT_APPROX_VALID);
  });

  test("checkVatApprox not registered: empty requestIdentifier", async () => {
    const response = await post(CHECK_VAT_APPROX_REQUEST.replace("854265259B01", "9999999"));
    expect(await response.text()).toBe(CHECK_VAT_APPROX_INVALID);
  });

  test("checkVatApprox with the ES sample's trader details: the published answer, on one line", async () => {
    const request = CHECK_VAT_APPROX_REQUEST.replace("<urn:countryCode>NL", "<urn:countryCode>ES")
      .replace("854265259B01", "B83891812")
      .replace(
        /<urn:requesterCountryCode>.*<\/urn:requesterVatNumber>/s,
        "<urn:traderName>Rodrisa Automoviles</urn:traderName><urn:traderCompanyType></urn:traderCompanyType>" +
          "<urn:traderStreet>Avda. Reina Victoria</urn:traderStreet><urn:traderPostcode>28430</urn:traderPostcode>" +
          "<urn:traderCity>Madrid</urn:traderCity>",
      );
    const body = await (await post(request)).text();
    const published = CHECK_VAT_APPROX_ES_MATCHING.replace(/>\s+</g, "><").replace(
      "2023-01-12+01:00",
      "2023-08-11+02:00",
    );
    expect(body).toBe(published);
  });

  test("a fault: the recorded 221 bytes", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "MS_MAX_CONCURRENT_REQ" });
    const response = await post(CHECK_VAT_REQUEST);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe("221");
    expect(await response.text()).toBe(FAULT_MS_MAX_CONCURRENT_REQ);
  });
});

describe("the REST door answers like the captures, from the same state as SOAP", () => {
  const postRest = (body: unknown) =>
    fetch(fake().baseUrl + VIES_REST_CHECK_PATH, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });

  test("the published success, field for field, in Jackson's layout", async () => {
    const response = await postRest({ countryCode: "BE", vatNumber: "0244142664" });
    expect(response.headers.get("content-type")).toBe("application/json");
    const text = await response.text();
    expect(text).toStartWith('{\n  "countryCode" : "BE",\n');
    const published = JSON.parse(REST_CHECK_VALID) as Record<string, unknown>;
    expect(JSON.parse(text)).toEqual({ ...published, requestDate: "2023-08-11T08:00:00.000Z" });
  });

  test("a member state's fault set once reaches whichever door asks first, as the captured envelope", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "MS_UNAVAILABLE" }, { times: 1 });
    const response = await postRest({ countryCode: "NL", vatNumber: "854265259B01" });
    expect([response.status, await response.text()]).toEqual([200, REST_MS_UNAVAILABLE]);
    expect(await (await post(CHECK_VAT_REQUEST)).text()).toBe(CHECK_VAT_VALID);
    expect(fake().calls.byDoor).toEqual({ soap: 1, rest: 1 });
  });

  test("one door broken, the other answering", async () => {
    fake().setBehaviour("NL", { kind: "html", status: 503 }, { door: "soap" });
    expect((await post(CHECK_VAT_REQUEST)).status).toBe(503);
    expect(await (await postRest({ countryCode: "NL", vatNumber: "854265259B01" })).json()).toMatchObject({
      valid: true,
      name: "GITHUB B.V.",
      address: "\nVIJZELSTRAAT 00068\n1017HL AMSTERDAM\n",
    });
  });
});

describe("refuses requests the way VIES does", () => {
  test("form Content-Type → the WebLogic HTML 500 page, still counted", async () => {
    const response = await post(CHECK_VAT_REQUEST, { "Content-Type": "application/x-www-form-urlencoded" });
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toStartWith("text/html");
    expect(await response.text()).toBe(WEBLOGIC_500_PAGE);
    expect(fake().calls.total).toBe(1);
    expect(fake().calls.byCountry).toEqual({});
  });

  test("a non-empty SOAPAction → the client fault", async () => {
    const action = "urn:ec.europa.eu:taxud:vies:services:checkVat/checkVat";
    const response = await post(CHECK_VAT_REQUEST, { "Content-Type": "text/xml", SOAPAction: action });
    expect(response.status).toBe(500);
    expect(await response.text()).toContain(
      `<faultstring>The given SOAPAction ${action} does not match an operation.</faultstring>`,
    );
  });

  test("no SOAPAction header at all is accepted", async () => {
    const response = await post(CHECK_VAT_REQUEST, { "Content-Type": "text/xml; charset=UTF-8" });
    expect(await response.text()).toBe(CHECK_VAT_VALID);
  });

  test("unqualified children (types namespace missing) → Client fault", async () => {
    const unqualified = CHECK_VAT_REQUEST.replace(/urn:(countryCode|vatNumber)>/g, "$1>");
    const response = await post(unqualified);
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(body).toContain("<faultcode>env:Client</faultcode>");
    expect(body).toContain("Unmarshalling Error");
  });

  test("requester fields inside checkVat → Client fault (only checkVatApprox has them)", async () => {
    const request = CHECK_VAT_APPROX_REQUEST.replace(/checkVatApprox>/g, "checkVat>");
    const body = await (await post(request)).text();
    expect(body).toContain(
      'Unmarshalling Error: unexpected element (uri:"urn:ec.europa.eu:taxud:vies:services:checkVat:types", local:"requesterCountryCode")',
    );
  });

  test("not XML → Client fault", async () => {
    const response = await post("hello");
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("Error reading XMLStreamReader.");
  });

  test("GB, GR, XX and an empty number → INVALID_INPUT with faultcode Server", async () => {
    for (const [country, number] of [
      ["GB", "123456789"],
      ["GR", "094259216"],
      ["XX", "123"],
      ["NL", ""],
    ]) {
      const request = CHECK_VAT_REQUEST.replace(">NL<", `>${country}<`).replace("854265259B01", number ?? "");
      const body = await (await post(request)).text();
      expect(body).toContain("<faultcode>env:Server</faultcode><faultstring>INVALID_INPUT</faultstring>");
    }
  });

  test("unknown paths → 404", async () => {
    expect((await fetch(`${fake().baseUrl}/taxation_customs/vies/nothing`)).status).toBe(404);
  });
});

describe("behaviours and bookkeeping", () => {
  test("a prefix behaviour wins over `*`, and `times` runs out", async () => {
    fake().setBehaviour("*", { kind: "fault", fault: "SERVICE_UNAVAILABLE" });
    fake().setBehaviour("NL", { kind: "fault", fault: "TIMEOUT" }, { times: 1 });
    const first = await (await post(CHECK_VAT_REQUEST)).text();
    const second = await (await post(CHECK_VAT_REQUEST)).text();
    expect(first).toContain("<faultstring>TIMEOUT</faultstring>");
    expect(second).toContain("<faultstring>SERVICE_UNAVAILABLE</faultstring>");
    fake().clearBehaviour("*");
    expect(await (await post(CHECK_VAT_REQUEST)).text()).toBe(CHECK_VAT_VALID);
  });

  test("reset() ends hanging calls and clears counters and behaviours", async () => {
    fake().setBehaviour("NL", { kind: "hang" });
    const pending = post(CHECK_VAT_REQUEST).then(
      () => "answered",
      () => "connection closed",
    );
    await Bun.sleep(50);
    expect(fake().calls.total).toBe(1);
    fake().reset();
    expect(await pending).toBe("connection closed");
    expect(fake().calls).toEqual({
      total: 0,
      byDoor: { soap: 0, rest: 0 },
      byCountry: {},
      log: [],
      maxInFlight: {},
      status: 0,
    });
    expect(await (await post(CHECK_VAT_REQUEST)).text()).toBe(CHECK_VAT_VALID);
  });

  test("per-country latency", async () => {
    fake().setLatency({ NL: 250 });
    const started = performance.now();
    await post(CHECK_VAT_REQUEST);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });

  test("the old soap: fault shape defaults to HTTP 500", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "MS_UNAVAILABLE", style: "soap" });
    const response = await post(CHECK_VAT_REQUEST);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe(
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>MS_UNAVAILABLE</faultstring></soap:Fault></soap:Body></soap:Envelope>',
    );
  });
});

describe("REST check-status", () => {
  test("pretty-printed the way Jackson does", async () => {
    fake().setStatus({ kind: "json", countries: { DE: "Unavailable" } });
    const body = await (await fetch(fake().baseUrl + VIES_STATUS_PATH)).text();
    expect(body).toStartWith(
      '{\n  "vow" : {\n    "available" : true\n  },\n  "countries" : [ {\n    "countryCode" : "AT",\n    "availability" : "Available"\n  }, {',
    );
    expect(body).toContain('"countryCode" : "DE",\n    "availability" : "Unavailable"');
    expect(body).toEndWith('"availability" : "Available"\n  } ]\n}');
  });

  test("actionSucceed:false as logged from the real API", async () => {
    fake().setStatus({ kind: "actionFailed", error: "MS_UNAVAILABLE" });
    const response = await fetch(fake().baseUrl + VIES_STATUS_PATH);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      '{\n  "actionSucceed" : false,\n  "errorWrappers" : [ {\n    "error" : "MS_UNAVAILABLE"\n  } ]\n}',
    );
  });
});

describe("brusselsRequestDate", () => {
  test("summer +02:00, winter +01:00, and the Brussels date around midnight UTC", () => {
    expect(brusselsRequestDate(Date.UTC(2023, 7, 11, 8))).toBe("2023-08-11+02:00");
    expect(brusselsRequestDate(Date.UTC(2024, 0, 15, 12))).toBe("2024-01-15+01:00");
    expect(brusselsRequestDate(Date.UTC(2024, 0, 15, 23, 30))).toBe("2024-01-16+01:00");
  });
});
