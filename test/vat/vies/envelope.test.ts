import { describe, expect, test } from "bun:test";
import { XMLParser } from "fast-xml-parser";
import { buildViesEnvelope } from "../../../src/vat/vies/envelope.ts";
import { parseSoapRequest } from "../../fakes/vies-wire.ts";
import { CHECK_VAT_APPROX_REQUEST, CHECK_VAT_REQUEST } from "./samples.ts";

/** Element structure with whitespace between tags removed, to compare with the indented recordings. */
const structure = (xml: string) =>
  new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(xml.replace(/>\s+</g, "><"));

describe("buildViesEnvelope", () => {
  test("checkVat matches the recorded request element for element", () => {
    const built = buildViesEnvelope({ prefix: "NL", number: "854265259B01" }, null);
    expect(structure(built)).toEqual(structure(CHECK_VAT_REQUEST));
  });

  test("checkVatApprox with requester matches the recorded request element for element", () => {
    const built = buildViesEnvelope(
      { prefix: "NL", number: "854265259B01" },
      { countryCode: "IE", vatNumber: "6388047V" },
    );
    expect(structure(built)).toEqual(structure(CHECK_VAT_APPROX_REQUEST));
  });

  test("is read by a namespace-aware endpoint as qualified fields", () => {
    const built = buildViesEnvelope(
      { prefix: "BE", number: "0123456789" },
      { countryCode: "DE", vatNumber: "123" },
    );
    expect(parseSoapRequest(built)).toEqual({
      operation: "checkVatApprox",
      countryCode: "BE",
      vatNumber: "0123456789",
      requesterCountryCode: "DE",
      requesterVatNumber: "123",
      trader: {},
    });
  });

  test("escapes XML special characters in every value", () => {
    const built = buildViesEnvelope(
      { prefix: "N<L", number: `1&2<3>"4'` },
      { countryCode: "D&E", vatNumber: "</urn:requesterVatNumber>" },
    );
    expect(built).not.toContain("1&2");
    expect(parseSoapRequest(built)).toEqual({
      operation: "checkVatApprox",
      countryCode: "N<L",
      vatNumber: `1&2<3>"4'`,
      requesterCountryCode: "D&E",
      requesterVatNumber: "</urn:requesterVatNumber>",
      trader: {},
    });
  });

  test("trader details make it checkVatApprox, their elements in the WSDL's order, before the requester", () => {
    const trader = {
      city: "Madrid",
      name: "Rodrisa & Hijos",
      postcode: "28430",
      street: "Avda. Reina Victoria",
    };
    const plain = buildViesEnvelope({ prefix: "ES", number: "B83891812", trader }, null);
    expect(plain).toContain(
      "<urn:checkVatApprox><urn:countryCode>ES</urn:countryCode><urn:vatNumber>B83891812</urn:vatNumber>" +
        "<urn:traderName>Rodrisa &amp; Hijos</urn:traderName><urn:traderStreet>Avda. Reina Victoria</urn:traderStreet>" +
        "<urn:traderPostcode>28430</urn:traderPostcode><urn:traderCity>Madrid</urn:traderCity></urn:checkVatApprox>",
    );
    const withRequester = buildViesEnvelope(
      { prefix: "ES", number: "B83891812", trader: { companyType: "ES-1", name: "x" } },
      { countryCode: "IE", vatNumber: "6388047V" },
    );
    expect(withRequester).toContain(
      "<urn:traderName>x</urn:traderName><urn:traderCompanyType>ES-1</urn:traderCompanyType>" +
        "<urn:requesterCountryCode>IE</urn:requesterCountryCode>",
    );
    expect(parseSoapRequest(plain)).toEqual({
      operation: "checkVatApprox",
      countryCode: "ES",
      vatNumber: "B83891812",
      requesterCountryCode: "",
      requesterVatNumber: "",
      trader: { name: "Rodrisa & Hijos", street: "Avda. Reina Victoria", postcode: "28430", city: "Madrid" },
    });
  });
});
