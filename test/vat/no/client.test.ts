import { describe, expect, test } from "bun:test";
import { brregAddress, createNoBrregClient } from "../../../src/vat/no/client.ts";
import { upstreamFault } from "../../../src/vat/upstream.ts";
import { startBrregFake } from "../../fakes/brreg.ts";
import { fakeForTests } from "../../support/fake-lifecycle.ts";
import { fixedClock, notRegisteredBy, TIMEOUT_MS } from "../vies/harness.ts";

const fake = fakeForTests(startBrregFake);

const check = (number: string, timeoutMs = TIMEOUT_MS) =>
  createNoBrregClient({ baseUrl: fake().baseUrl, clock: fixedClock }).check(
    { prefix: "NO", number },
    { timeoutMs },
  );

const notRegistered = notRegisteredBy("no_brreg");

describe("Enhetsregisteret: a verdict from the unit", () => {
  test("in the VAT register and not deleted: `navn` and `forretningsadresse`", async () => {
    expect(await check("923609016")).toEqual({
      ...notRegistered,
      valid: true,
      name: "EQUINOR ASA",
      address: "Forusbeen 50\n4035 STAVANGER",
    });
    expect(fake().calls.log).toEqual([{ orgnr: "923609016", accept: "application/json" }]);
  });

  test("outside the VAT register, deleted (200 with `slettedato`), removed (410), unknown (404): not registered", async () => {
    for (const number of ["988077917", "821227062", "433695968", "974760665"]) {
      expect(await check(number)).toEqual(notRegistered);
    }
  });

  test("the address: every line, the postcode and place, the country when it is not Norway", () => {
    expect(
      brregAddress({
        adresse: ["c/o Advokat AS", "Postboks 1", ""],
        postnummer: "0101",
        poststed: "OSLO",
        landkode: "NO",
        land: "Norge",
      }),
    ).toBe("c/o Advokat AS\nPostboks 1\n0101 OSLO");
    expect(
      brregAddress({
        adresse: ["Strandvejen 1"],
        postnummer: "2900",
        poststed: "HELLERUP",
        landkode: "DK",
        land: "Danmark",
      }),
    ).toBe("Strandvejen 1\n2900 HELLERUP\nDanmark");
    expect(brregAddress(undefined)).toBeNull();
  });
});

describe("every other answer is a fault, never a verdict", () => {
  test.each([
    [
      "429",
      { kind: "status", status: 429 } as const,
      upstreamFault("upstream_rate_limited", "HTTP_429", true),
    ],
    [
      "500",
      { kind: "status", status: 500, body: "{}" } as const,
      upstreamFault("service_unavailable", "HTTP_500", false),
    ],
    [
      "an HTML 503 page",
      { kind: "html", status: 503 } as const,
      upstreamFault("service_unavailable", "HTTP_503", true),
    ],
    [
      "HTML with 200",
      { kind: "status", status: 200, body: "<html>maintenance</html>", contentType: "text/html" } as const,
      upstreamFault("service_unavailable", "UNPARSEABLE", false),
    ],
    [
      "a JSON object that is no unit",
      { kind: "status", status: 200, body: '{"navn":"X"}' } as const,
      upstreamFault("service_unavailable", "UNPARSEABLE", false),
    ],
    ["a connection reset", { kind: "reset" } as const, upstreamFault("service_unavailable", "NETWORK", true)],
  ])("%s", async (_, behaviour, expected) => {
    fake().setBehaviour(behaviour);
    expect(await check("923609016")).toEqual(expected);
  });

  test("400 (a number it does not take): the register refused the input", async () => {
    expect(await check("12345")).toEqual(upstreamFault("invalid_input", "HTTP_400", false));
  });

  test("no answer in time: service_unavailable, retryable", async () => {
    fake().setBehaviour({ kind: "hang" });
    expect(await check("923609016", 200)).toEqual(
      upstreamFault("service_unavailable", "CLIENT_TIMEOUT", true),
    );
  });
});
