import { describe, expect, test } from "bun:test";
import { createLogger } from "../../../src/kernel/log.ts";
import { createChUidClient } from "../../../src/vat/ch/client.ts";
import { upstreamFault } from "../../../src/vat/upstream.ts";
import { startUidRegisterFake } from "../../fakes/uid-register.ts";
import { fakeForTests } from "../../support/fake-lifecycle.ts";
import { fixedClock, notRegisteredBy, TIMEOUT_MS } from "../vies/harness.ts";

const fake = fakeForTests(startUidRegisterFake);

const options = { timeoutMs: TIMEOUT_MS };

function client() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger("debug", (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  return { client: createChUidClient({ baseUrl: fake().baseUrl, clock: fixedClock, log }), lines };
}

const check = (number: string, timeoutMs = TIMEOUT_MS) =>
  client().client.check({ prefix: "CH", number }, { timeoutMs });

const notRegistered = notRegisteredBy("ch_uid");

describe("GetByUID: a verdict from the register's record", () => {
  test("in the VAT register and active: the name and the legal address of its first entry", async () => {
    expect(await check("E101329561")).toEqual({
      ...notRegistered,
      valid: true,
      name: "UBS AG",
      address: "Bahnhofstrasse 45\n8001 Zürich",
    });
  });

  test("the request: SOAP 1.1, the quoted action, the UID's nine digits in eCH-0097", async () => {
    await check("E101329561");
    expect(fake().calls.log).toEqual([
      {
        uid: "101329561",
        soapAction: '"http://www.uid.admin.ch/xmlns/uid-wse/IPublicServices/GetByUID"',
        contentType: "text/xml; charset=utf-8",
      },
    ]);
  });

  test("an address with a c/o line keeps it, before the street", async () => {
    expect(await check("E107185562")).toMatchObject({
      valid: true,
      name: "Boulangerie Aubry",
      address: "p.a. Famille Aubry\nRue Pierre Péquignat 8\n2800 Delémont",
    });
  });

  test("not in the VAT register, a VAT registration that ended, a UID the register does not know: not registered", async () => {
    for (const number of ["E319027296", "E116281710", "E100155212"]) {
      expect(await check(number)).toEqual(notRegistered);
    }
  });
});

describe("the register's faults are never a verdict", () => {
  test("Request_limit_exceeded: upstream_rate_limited", async () => {
    fake().setRateLimit(1);
    expect(await check("E101329561")).toMatchObject({ kind: "verdict", valid: true });
    expect(await check("E101329561")).toEqual(
      upstreamFault("upstream_rate_limited", "Request_limit_exceeded", false),
    );
  });

  test("Data_validation_failed: the register refused the number", async () => {
    expect(await check("E12345678")).toEqual(upstreamFault("invalid_input", "Data_validation_failed", false));
  });

  test("a fault it is not known to send: service_unavailable, logged for operators", async () => {
    fake().setBehaviour({ kind: "fault", fault: "Something_new" });
    const { client: uid, lines } = client();
    expect(await uid.check({ prefix: "CH", number: "E101329561" }, options)).toEqual(
      upstreamFault("service_unavailable", "UNKNOWN_FAULT", false),
    );
    expect(lines).toMatchObject([
      { event: "ch_uid.fault_needs_attention", fault: "Something_new", httpStatus: 500 },
    ]);
  });

  test.each([
    [
      "an HTML 503 page",
      { kind: "html", status: 503 } as const,
      upstreamFault("service_unavailable", "HTTP_503", false),
    ],
    ["a connection reset", { kind: "reset" } as const, upstreamFault("service_unavailable", "NETWORK", true)],
    [
      "bytes that are not HTTP",
      { kind: "garbage" } as const,
      upstreamFault("service_unavailable", "NETWORK", true),
    ],
  ])("%s", async (_, behaviour, expected) => {
    fake().setBehaviour(behaviour);
    expect(await check("E101329561")).toEqual(expected);
  });

  test("no answer in time: service_unavailable, retryable (nothing stands behind the register)", async () => {
    fake().setBehaviour({ kind: "hang" });
    expect(await check("E101329561", 200)).toEqual(
      upstreamFault("service_unavailable", "CLIENT_TIMEOUT", true),
    );
  });
});

describe("the fake refuses what the register's WCF endpoint refuses", () => {
  const post = (body: string, headers: Record<string, string>) =>
    fetch(`${fake().baseUrl}/V5.0/PublicServices.svc`, { method: "POST", headers, body });
  const request = (ns: string) =>
    `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:uid="${ns}" xmlns:ech="http://www.ech.ch/xmlns/eCH-0097/5"><soapenv:Body><uid:GetByUID><uid:uid><ech:uidOrganisationIdCategorie>CHE</ech:uidOrganisationIdCategorie><ech:uidOrganisationId>101329561</ech:uidOrganisationId></uid:uid></uid:GetByUID></soapenv:Body></soapenv:Envelope>`;
  const action = '"http://www.uid.admin.ch/xmlns/uid-wse/IPublicServices/GetByUID"';

  test("another SOAPAction: ActionNotSupported", async () => {
    const response = await post(request("http://www.uid.admin.ch/xmlns/uid-wse"), {
      "Content-Type": "text/xml; charset=utf-8",
      SOAPAction: '""',
    });
    expect([response.status, await response.text()]).toEqual([
      500,
      expect.stringContaining("a:ActionNotSupported"),
    ]);
  });

  test("the operation in another namespace: not read as a GetByUID", async () => {
    const response = await post(request("http://www.uid.admin.ch/xmlns/uid-wse/5"), {
      "Content-Type": "text/xml; charset=utf-8",
      SOAPAction: action,
    });
    expect([response.status, await response.text()]).toEqual([
      500,
      expect.stringContaining("Deserialization_failed"),
    ]);
  });
});
