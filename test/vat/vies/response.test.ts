import { describe, expect, test } from "bun:test";
import { disclosed } from "../../../src/vat/disclosed.ts";
import { parseViesResponse } from "../../../src/vat/vies/response.ts";
import { WEBLOGIC_500_PAGE } from "../../fakes/vies-wire.ts";
import {
  CHECK_VAT_APPROX_ES_MATCHING,
  CHECK_VAT_APPROX_INVALID,
  CHECK_VAT_APPROX_VALID,
  CHECK_VAT_INVALID,
  CHECK_VAT_VALID,
  FAULT_MS_MAX_CONCURRENT_REQ,
} from "./samples.ts";

const checkVatBody = (fields: string) =>
  `<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Header/><env:Body><ns2:checkVatResponse xmlns:ns2="urn:ec.europa.eu:taxud:vies:services:checkVat:types">${fields}</ns2:checkVatResponse></env:Body></env:Envelope>`;

describe("parseViesResponse with the recorded samples", () => {
  test("checkVat valid: name, and the address with its outer newlines trimmed and inner kept", () => {
    expect(parseViesResponse(CHECK_VAT_VALID)).toEqual({
      kind: "answer",
      valid: true,
      name: "GITHUB B.V.",
      address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM",
      requestIdentifier: null,
      traderMatch: null,
    });
  });

  test("checkVat not registered: valid false, `---` becomes null", () => {
    expect(parseViesResponse(CHECK_VAT_INVALID)).toEqual({
      kind: "answer",
      valid: false,
      name: null,
      address: null,
      requestIdentifier: null,
      traderMatch: null,
    });
  });

  test("checkVatApprox valid: trader fields and the consultation number", () => {
    expect(parseViesResponse(CHECK_VAT_APPROX_VALID)).toEqual({
      kind: "answer",
      valid: true,
      name: "GITHUB B.V.",
      address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM",
      requestIdentifier: "WAPIAAAAYnkVx97D",
      traderMatch: null,
    });
  });

  test("checkVatApprox not registered: the empty requestIdentifier is null", () => {
    expect(parseViesResponse(CHECK_VAT_APPROX_INVALID)).toEqual({
      kind: "answer",
      valid: false,
      name: null,
      address: null,
      requestIdentifier: null,
      traderMatch: null,
    });
  });

  test("pretty-printed ES trader-matching sample: the match codes 1, 2 and 3 (whitespace between elements)", () => {
    expect(parseViesResponse(CHECK_VAT_APPROX_ES_MATCHING)).toEqual({
      kind: "answer",
      valid: true,
      name: "Rodrisa Automoviles",
      address: null,
      requestIdentifier: null,
      traderMatch: {
        name: "match",
        companyType: "not_processed",
        street: "match",
        postcode: "match",
        city: "mismatch",
      },
    });
  });

  test("match codes VIES does not define are left out; none left is null", () => {
    const approx = (codes: string) =>
      `<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body><ns2:checkVatApproxResponse xmlns:ns2="urn:ec.europa.eu:taxud:vies:services:checkVat:types"><ns2:valid>true</ns2:valid>${codes}<ns2:requestIdentifier></ns2:requestIdentifier></ns2:checkVatApproxResponse></env:Body></env:Envelope>`;
    expect(
      parseViesResponse(
        approx("<ns2:traderNameMatch> 2 </ns2:traderNameMatch><ns2:traderCityMatch>4</ns2:traderCityMatch>"),
      ),
    ).toMatchObject({ traderMatch: { name: "mismatch" } });
    expect(
      parseViesResponse(approx("<ns2:traderNameMatch>VALID</ns2:traderNameMatch><ns2:traderCityMatch/>")),
    ).toMatchObject({
      traderMatch: null,
    });
  });

  test("an envelope without a fault or an answer is unreadable; what is no envelope is null", () => {
    expect(
      parseViesResponse(
        '<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body><ns2:other xmlns:ns2="urn:x"/></env:Body></env:Envelope>',
      ),
    ).toEqual({ kind: "unreadable" });
    expect(parseViesResponse("<html><body>Service Unavailable</body></html>")).toBeNull();
    expect(parseViesResponse("<Envelope><Header/></Envelope>")).toBeNull();
  });

  test("fault envelope: the faultstring is the whole code", () => {
    expect(parseViesResponse(FAULT_MS_MAX_CONCURRENT_REQ)).toEqual({
      kind: "soapFault",
      faultString: "MS_MAX_CONCURRENT_REQ",
    });
  });
});

describe("parseViesResponse, namespace-agnostic", () => {
  test("the pre-2022 `soap:` fault shape", () => {
    const body =
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>MS_UNAVAILABLE</faultstring></soap:Fault></soap:Body></soap:Envelope>';
    expect(parseViesResponse(body)).toEqual({ kind: "soapFault", faultString: "MS_UNAVAILABLE" });
  });

  test("`S:` prefix with an XML declaration", () => {
    const body =
      '<?xml version="1.0" encoding="UTF-8"?><S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><S:Fault><faultcode>S:Server</faultcode><faultstring> TIMEOUT </faultstring></S:Fault></S:Body></S:Envelope>';
    expect(parseViesResponse(body)).toEqual({ kind: "soapFault", faultString: "TIMEOUT" });
  });

  test("default namespaces, no prefixes at all", () => {
    const body =
      '<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><checkVatResponse xmlns="urn:ec.europa.eu:taxud:vies:services:checkVat:types"><countryCode>NL</countryCode><valid>true</valid><name>X</name></checkVatResponse></Body></Envelope>';
    expect(parseViesResponse(body)).toMatchObject({ kind: "answer", valid: true, name: "X", address: null });
  });

  test("a fault is found first even when a response element is also present", () => {
    const body =
      '<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body><ns2:checkVatResponse xmlns:ns2="urn:x"><ns2:valid>false</ns2:valid></ns2:checkVatResponse><env:Fault><faultcode>env:Server</faultcode><faultstring>TIMEOUT</faultstring></env:Fault></env:Body></env:Envelope>';
    expect(parseViesResponse(body)).toEqual({ kind: "soapFault", faultString: "TIMEOUT" });
  });

  test("a fault without a faultstring gives an empty code (mapped as unknown)", () => {
    const body =
      '<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body><env:Fault><faultcode>env:Server</faultcode></env:Fault></env:Body></env:Envelope>';
    expect(parseViesResponse(body)).toEqual({ kind: "soapFault", faultString: "" });
  });
});

describe("parseViesResponse values", () => {
  test("a Belgian number with a leading zero stays a string, and so does every value", () => {
    const body = checkVatBody(
      "<ns2:countryCode>BE</ns2:countryCode><ns2:vatNumber>0123456789</ns2:vatNumber><ns2:valid>true</ns2:valid><ns2:name>0042</ns2:name><ns2:address>1000</ns2:address>",
    );
    expect(parseViesResponse(body)).toMatchObject({ name: "0042", address: "1000" });
  });

  test("entities and numeric character references are decoded", () => {
    const body = checkVatBody(
      "<ns2:valid>true</ns2:valid><ns2:name>SMITH &amp; SONS &lt;UK&gt; CAF&#xC9; &#233;</ns2:name><ns2:address>RUE A&#xD;\nB</ns2:address>",
    );
    expect(parseViesResponse(body)).toMatchObject({ name: "SMITH & SONS <UK> CAFÉ é", address: "RUE A\nB" });
  });

  test("empty, whitespace-only, self-closed and missing name/address are null (2022 CZ/IE shape)", () => {
    const body = checkVatBody(
      "<ns2:valid>false</ns2:valid><ns2:name></ns2:name><ns2:address>  \n </ns2:address>",
    );
    expect(parseViesResponse(body)).toMatchObject({ valid: false, name: null, address: null });
    expect(parseViesResponse(checkVatBody("<ns2:valid>false</ns2:valid><ns2:name/>"))).toMatchObject({
      name: null,
      address: null,
    });
  });

  test("the IT 2024 approx shape: empty trader fields, `---` company type, empty identifier", () => {
    const body =
      '<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Header/><env:Body><ns2:checkVatApproxResponse xmlns:ns2="urn:ec.europa.eu:taxud:vies:services:checkVat:types"><ns2:countryCode>IT</ns2:countryCode><ns2:vatNumber>00000000000</ns2:vatNumber><ns2:requestDate>2024-03-01+01:00</ns2:requestDate><ns2:valid>false</ns2:valid><ns2:traderName></ns2:traderName><ns2:traderCompanyType>---</ns2:traderCompanyType><ns2:traderAddress></ns2:traderAddress><ns2:requestIdentifier></ns2:requestIdentifier></ns2:checkVatApproxResponse></env:Body></env:Envelope>';
    expect(parseViesResponse(body)).toEqual({
      kind: "answer",
      valid: false,
      name: null,
      address: null,
      requestIdentifier: null,
      traderMatch: null,
    });
  });

  test("`valid` is an xsd:boolean: 1 and 0 are true and false", () => {
    expect(parseViesResponse(checkVatBody("<ns2:valid>1</ns2:valid>"))).toMatchObject({ valid: true });
    expect(parseViesResponse(checkVatBody("<ns2:valid> 0 </ns2:valid>"))).toMatchObject({ valid: false });
  });

  test("`valid` other than an xsd:boolean is not an answer: the envelope is unreadable", () => {
    const unreadable = { kind: "unreadable" } as const;
    expect(parseViesResponse(checkVatBody("<ns2:valid>maybe</ns2:valid>"))).toEqual(unreadable);
    expect(parseViesResponse(checkVatBody("<ns2:name>X</ns2:name>"))).toEqual(unreadable);
    expect(parseViesResponse(checkVatBody("<ns2:valid>true</ns2:valid><ns2:valid>true</ns2:valid>"))).toEqual(
      unreadable,
    );
  });
});

describe("parseViesResponse refuses what is not a VIES envelope", () => {
  const cases: [string, string][] = [
    ["WebLogic HTML 500 page", WEBLOGIC_500_PAGE],
    ["well-formed XHTML", "<html><body><h1>503 Service Unavailable</h1></body></html>"],
    ["plain text", "Service Unavailable"],
    ["empty body", ""],
    ["JSON", '{"actionSucceed":false}'],
    ["truncated envelope", CHECK_VAT_VALID.slice(0, 200)],
    ["envelope without a body", '<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"/>'],
  ];
  for (const [label, body] of cases) {
    test(label, () => {
      expect(parseViesResponse(body)).toBeNull();
    });
  }
});

describe("disclosed", () => {
  test("not disclosed: `---`, empty, whitespace, missing", () => {
    for (const raw of ["---", " --- ", "", "   ", "\n\n", undefined]) expect(disclosed(raw)).toBeNull();
  });

  test("multi-line: CRLF and CR normalized, lines trimmed, blank lines dropped", () => {
    expect(disclosed("\r\n  RUE AUGUSTE LAPORTE 34  \r\n\r\n4900 SPA\r")).toBe(
      "RUE AUGUSTE LAPORTE 34\n4900 SPA",
    );
  });

  test("one-line addresses keep their commas and inner double spaces", () => {
    expect(disclosed("38, AVENUE JOHN F. KENNEDY L-1855  LUXEMBOURG")).toBe(
      "38, AVENUE JOHN F. KENNEDY L-1855  LUXEMBOURG",
    );
  });
});
