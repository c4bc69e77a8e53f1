import { describe, expect, test } from "bun:test";
import type { UpstreamVerdict } from "../../../src/vat/upstream.ts";
import { createViesClient, REQUESTER_PAUSE_MS } from "../../../src/vat/vies/client.ts";
import { startViesFake } from "../../fakes/vies.ts";
import { fakeForTests } from "../../support/fake-lifecycle.ts";
import { manualClock } from "../../support/manual-clock.ts";
import { clientFor, fixedClock, NOW, notRegisteredBy, TIMEOUT_MS } from "./harness.ts";

const fake = fakeForTests(startViesFake);

const options = { timeoutMs: TIMEOUT_MS };
const checkedAt = new Date(NOW).toISOString();
/** The verdict of checkVat for the fake's registered Dutch number. */
const REGISTERED: UpstreamVerdict = {
  kind: "verdict",
  valid: true,
  name: "GITHUB B.V.",
  address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM",
  checkedAt,
  consultationNumber: null,
  traderMatch: null,
  source: "vies",
  path: "soap",
};

describe("checkVat (no requester configured)", () => {
  test("a registered number: name, multi-line address, our own checkedAt, no consultation number", async () => {
    const { client } = clientFor(fake());
    expect(await client.check({ prefix: "NL", number: "854265259B01" }, options)).toEqual(REGISTERED);
  });

  test("sends checkVat with the headers VIES accepts", async () => {
    const { client } = clientFor(fake());
    await client.check({ prefix: "NL", number: "854265259B01" }, options);
    expect(fake().calls.log).toEqual([
      {
        door: "soap",
        operation: "checkVat",
        countryCode: "NL",
        vatNumber: "854265259B01",
        requester: null,
        trader: {},
        contentType: "text/xml; charset=UTF-8",
        soapAction: '""',
      },
    ]);
    expect(fake().calls.byCountry).toEqual({ NL: 1 });
  });

  test("DE answers `---` for a valid number: name and address are null", async () => {
    const { client } = clientFor(fake());
    expect(await client.check({ prefix: "DE", number: "811569869" }, options)).toMatchObject({
      kind: "verdict",
      valid: true,
      name: null,
      address: null,
    });
  });

  test("a number not registered is the verdict valid:false", async () => {
    const { client } = clientFor(fake());
    expect(await client.check({ prefix: "NL", number: "9999999" }, options)).toEqual({
      ...notRegisteredBy("vies"),
      path: "soap",
    });
  });

  test("an invalid number answered with empty name and address (CZ) gives nulls", async () => {
    const { client } = clientFor(fake());
    expect(await client.check({ prefix: "CZ", number: "12345678" }, options)).toMatchObject({
      valid: false,
      name: null,
      address: null,
    });
  });

  test("a Belgian number with a leading zero round-trips as a string", async () => {
    fake().addNumber("BE", "0123456789", { valid: true, name: "0042 SRL", address: "RUE 1\n1000 BRUXELLES" });
    const { client } = clientFor(fake());
    expect(await client.check({ prefix: "BE", number: "0123456789" }, options)).toMatchObject({
      valid: true,
      name: "0042 SRL",
    });
    expect(fake().calls.log[0]?.vatNumber).toBe("0123456789");
  });

  test("CRLF addresses, trailing spaces and XML entities are normalized", async () => {
    fake().addNumber("FR", "40303265045", {
      valid: true,
      name: "A & B <SAS>",
      address: "\r\n1 RUE X   \r\n\r\n75001 PARIS\r\n",
    });
    const { client } = clientFor(fake());
    expect(await client.check({ prefix: "FR", number: "40303265045" }, options)).toMatchObject({
      name: "A & B <SAS>",
      address: "1 RUE X\n75001 PARIS",
    });
  });

  test("inputs are XML-escaped: the fake reads back exactly what was sent", async () => {
    const { client } = clientFor(fake());
    const outcome = await client.check({ prefix: "NL", number: "A&B<C>'\"" }, options);
    expect(fake().calls.log[0]?.vatNumber).toBe("A&B<C>'\"");
    // The characters are outside the WSDL pattern: a refusal of the input, not a verdict.
    expect(outcome).toEqual({
      kind: "fault",
      code: "invalid_input",
      detail: "INVALID_INPUT",
      retryable: false,
      path: "soap",
    });
  });

  test("Greece is EL and Northern Ireland XI", async () => {
    fake().addNumber("EL", "094259216", { valid: true, name: "GREEK SA", address: "ATHINA" });
    fake().addNumber("XI", "123456789", { valid: true, name: "NI LTD", address: "BELFAST" });
    const { client } = clientFor(fake());
    expect(await client.check({ prefix: "EL", number: "094259216" }, options)).toMatchObject({ valid: true });
    expect(await client.check({ prefix: "XI", number: "123456789" }, options)).toMatchObject({ valid: true });
  });

  test("a slow answer inside the timeout is still a verdict", async () => {
    fake().setLatency({ NL: 300 });
    const { client } = clientFor(fake());
    expect(await client.check({ prefix: "NL", number: "854265259B01" }, { timeoutMs: 3_000 })).toMatchObject({
      kind: "verdict",
      valid: true,
    });
  });

  test("a base URL with a trailing slash works", async () => {
    const client = createViesClient({
      baseUrl: `${fake().baseUrl}/`,
      requesterVat: null,
      protocol: "soap",
      clock: fixedClock,
    });
    expect(await client.check({ prefix: "NL", number: "854265259B01" }, options)).toMatchObject({
      valid: true,
    });
  });
});

describe("checkVatApprox with trader details (approximate matching)", () => {
  const RODRISA = { prefix: "ES", number: "B83891812" };

  test("Spain compares them itself: its codes, and no name or address (the name sent back is no record)", async () => {
    const { client } = clientFor(fake());
    const trader = {
      name: "RODRISA AUTOMÓVILES",
      street: "Avda. Reina Victoria",
      postcode: "28430",
      city: "Madrid",
    };
    expect(await client.check({ ...RODRISA, trader }, options)).toEqual({
      kind: "verdict",
      valid: true,
      name: null,
      address: null,
      checkedAt,
      consultationNumber: null,
      traderMatch: { name: "match", street: "match", postcode: "match", city: "mismatch" },
      source: "vies",
      path: "soap",
    });
    expect(fake().calls.log[0]).toMatchObject({ operation: "checkVatApprox", requester: null, trader });
  });

  test("with the requester too: one checkVatApprox carries both, and the consultation number comes back", async () => {
    const { client } = clientFor(fake(), "IE6388047V");
    const outcome = await client.check(
      { ...RODRISA, trader: { name: "Other SL", companyType: "ES-1" } },
      options,
    );
    expect(outcome).toMatchObject({
      valid: true,
      name: null,
      traderMatch: { name: "mismatch", companyType: "not_processed" },
    });
    expect(outcome.kind === "verdict" && outcome.consultationNumber).toMatch(/^WAPI/);
    expect(fake().calls.log).toHaveLength(1);
    expect(fake().calls.log[0]).toMatchObject({
      requester: { countryCode: "IE", vatNumber: "6388047V" },
      trader: { name: "Other SL", companyType: "ES-1" },
    });
  });

  test("a state that does not compare answers NOT_PROCESSED and discloses its record as usual", async () => {
    const { client } = clientFor(fake());
    expect(
      await client.check({ prefix: "NL", number: "854265259B01", trader: { name: "GitHub" } }, options),
    ).toEqual({ ...REGISTERED, traderMatch: { name: "not_processed" } });
  });

  test("a number not registered: NOT_PROCESSED for what was sent", async () => {
    const { client } = clientFor(fake());
    expect(
      await client.check({ prefix: "ES", number: "A13585625", trader: { name: "Acme" } }, options),
    ).toMatchObject({
      valid: false,
      name: null,
      traderMatch: { name: "not_processed" },
    });
  });
});

describe("checkVatApprox (requester configured)", () => {
  test("a valid number carries the consultation number", async () => {
    const { client } = clientFor(fake(), "IE6388047V");
    const outcome = await client.check({ prefix: "NL", number: "854265259B01" }, options);
    expect(outcome).toMatchObject({
      kind: "verdict",
      valid: true,
      name: "GITHUB B.V.",
      address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM",
    });
    expect(outcome.kind === "verdict" && outcome.consultationNumber).toMatch(/^WAPI[A-Za-z0-9]{12}$/);
    expect(fake().calls.log[0]).toMatchObject({
      operation: "checkVatApprox",
      requester: { countryCode: "IE", vatNumber: "6388047V" },
    });
  });

  test("the configured requester is normalized before it is sent", async () => {
    const { client } = clientFor(fake(), "de 136-695-976");
    await client.check({ prefix: "NL", number: "854265259B01" }, options);
    expect(fake().calls.log[0]?.requester).toEqual({ countryCode: "DE", vatNumber: "136695976" });
  });

  test("an invalid number comes with an empty requestIdentifier: consultation number null", async () => {
    const { client } = clientFor(fake(), "IE6388047V");
    expect(await client.check({ prefix: "NL", number: "9999999" }, options)).toMatchObject({
      kind: "verdict",
      valid: false,
      consultationNumber: null,
      traderMatch: null,
    });
  });

  test("DE through checkVatApprox: traderName/traderAddress `---` are null", async () => {
    const { client } = clientFor(fake(), "IE6388047V");
    expect(await client.check({ prefix: "DE", number: "811569869" }, options)).toMatchObject({
      valid: true,
      name: null,
      address: null,
    });
  });

  test("INVALID_REQUESTER_INFO: retried once as checkVat, without consultation number, and logged", async () => {
    // A well-formed requester VIES refuses all the same (deregistered, say).
    fake().setBehaviour("NL", { kind: "fault", fault: "INVALID_REQUESTER_INFO" }, { times: 1 });
    const { client, events } = clientFor(fake(), "DE136695976");
    expect(await client.check({ prefix: "NL", number: "854265259B01" }, options)).toEqual(REGISTERED);
    expect(fake().calls.log.map((call) => call.operation)).toEqual(["checkVatApprox", "checkVat"]);
    expect(events).toEqual([
      {
        event: "vies.requester_rejected",
        fields: {
          requesterCountryCode: "DE",
          requesterVatNumber: "136695976",
          countryCode: "NL",
          path: "soap",
          pausedForMs: REQUESTER_PAUSE_MS,
        },
      },
    ]);
  });

  test("after a refusal the requester is paused: plain checkVat at once, checkVatApprox again later", async () => {
    const clock = manualClock(NOW);
    fake().setBehaviour("NL", { kind: "fault", fault: "INVALID_REQUESTER_INFO" }, { times: 1 });
    const { client } = clientFor(fake(), "DE136695976", clock);
    await client.check({ prefix: "NL", number: "854265259B01" }, options);
    clock.advance(REQUESTER_PAUSE_MS - 1);
    expect(await client.check({ prefix: "NL", number: "854265259B01" }, options)).toMatchObject({
      valid: true,
      consultationNumber: null,
      traderMatch: null,
    });
    clock.advance(1);
    const again = await client.check({ prefix: "NL", number: "854265259B01" }, options);
    expect(again.kind === "verdict" && again.consultationNumber).toMatch(/^WAPI/);
    expect(fake().calls.log.map((call) => call.operation)).toEqual([
      "checkVatApprox",
      "checkVat",
      "checkVat",
      "checkVatApprox",
    ]);
  });

  test("when the plain retry faults too, that fault is the outcome", async () => {
    fake().setBehaviour("NL", { kind: "fault", fault: "INVALID_REQUESTER_INFO" }, { times: 1 });
    fake().setBehaviour("NL", { kind: "fault", fault: "MS_UNAVAILABLE" }, { times: 1 });
    const { client } = clientFor(fake(), "IE6388047V");
    expect(await client.check({ prefix: "NL", number: "854265259B01" }, options)).toEqual({
      kind: "fault",
      code: "member_state_unavailable",
      detail: "MS_UNAVAILABLE",
      retryable: false,
      path: "soap",
    });
    expect(fake().calls.total).toBe(2);
  });
});
