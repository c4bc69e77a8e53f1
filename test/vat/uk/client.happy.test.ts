import { afterEach, describe, expect, test } from "bun:test";
import { createUkVatClient } from "../../../src/vat/uk/client.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  type Harness,
  REQUESTER_VRN,
  SANDBOX_VRN,
  startHarness,
} from "./harness.ts";

let harness: Harness;
afterEach(() => harness.fake.stop());

describe("lookups", () => {
  test("a registered number is valid, with name and address lines, dated by the injected clock", async () => {
    harness = startHarness();
    harness.fake.addNumber("245719348", {
      name: "BRITISH TELECOMMUNICATIONS PUBLIC LIMITED COMPANY",
      lines: ["1 BRAHAM STREET", "", "LONDON"],
      postcode: "E1 8EE",
    });
    expect(await harness.check("245719348")).toEqual({
      kind: "verdict",
      valid: true,
      name: "BRITISH TELECOMMUNICATIONS PUBLIC LIMITED COMPANY",
      address: "1 BRAHAM STREET\nLONDON\nE1 8EE",
      checkedAt: "2025-03-01T10:00:00.000Z",
      consultationNumber: null,
      traderMatch: null,
      source: "uk_authority",
    });
  });

  test("sends HMRC's v2.0 Accept header and the bearer token to the simple lookup path", async () => {
    harness = startHarness();
    await harness.check(SANDBOX_VRN);
    const lookup = harness.fake.requests.find((request) => request.endpoint === "lookup");
    expect(lookup?.method).toBe("GET");
    expect(lookup?.path).toBe(`/organisations/vat/check-vat-number/lookup/${SANDBOX_VRN}`);
    expect(lookup?.headers.accept).toBe("application/vnd.hmrc.2.0+json");
    expect(lookup?.headers.authorization).toBe(`Bearer ${harness.fake.issuedTokens()[0]}`);
  });

  test("asks for the token with client credentials, form-encoded, and the read:vat scope", async () => {
    harness = startHarness();
    await harness.check(SANDBOX_VRN);
    const tokenRequest = harness.fake.requests.find((request) => request.endpoint === "token");
    expect(tokenRequest?.method).toBe("POST");
    expect(tokenRequest?.headers["content-type"]).toStartWith("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(tokenRequest?.body))).toEqual({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_type: "client_credentials",
      scope: "read:vat",
    });
  });

  test("a number HMRC does not know is a definitive valid: false", async () => {
    harness = startHarness();
    expect(await harness.check("100000034")).toEqual({
      kind: "verdict",
      valid: false,
      name: null,
      address: null,
      checkedAt: "2025-03-01T10:00:00.000Z",
      consultationNumber: null,
      traderMatch: null,
      source: "uk_authority",
    });
  });

  test("with a requester VRN the lookup is verified and carries HMRC's consultation number", async () => {
    harness = startHarness({ requesterVrn: `GB ${REQUESTER_VRN}` });
    const outcome = await harness.check(SANDBOX_VRN);
    expect(outcome.kind === "verdict" && outcome.consultationNumber).toMatch(/^[A-Za-z]{9}$/);
    const lookup = harness.fake.requests.find((request) => request.endpoint === "lookup");
    expect(lookup?.path).toBe(`/organisations/vat/check-vat-number/lookup/${SANDBOX_VRN}/${REQUESTER_VRN}`);
  });

  test("a 12-digit branch number is sent whole", async () => {
    harness = startHarness();
    harness.fake.addNumber("948561936944", {
      name: "Branch Ltd",
      lines: ["2 Mill Lane"],
      postcode: "M1 1AA",
    });
    const outcome = await harness.check("948561936944");
    expect(outcome.kind === "verdict" && outcome.valid).toBe(true);
    expect(harness.fake.requests.at(-1)?.path).toEndWith("/lookup/948561936944");
  });

  test("a trailing slash on the base URL is tolerated", async () => {
    harness = startHarness();
    const client = createUkVatClient({
      baseUrl: `${harness.fake.baseUrl}/`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clock: harness.clock,
    });
    const outcome = await client.check({ prefix: "GB", number: SANDBOX_VRN }, { timeoutMs: 2_000 });
    expect(outcome.kind === "verdict" && outcome.valid).toBe(true);
  });
});

describe("token reuse", () => {
  test("one token serves many lookups", async () => {
    harness = startHarness();
    for (let i = 0; i < 5; i += 1) await harness.check(SANDBOX_VRN);
    expect(harness.fake.calls).toEqual({ token: 1, lookup: 5 });
  });

  test("concurrent first calls share a single token request", async () => {
    harness = startHarness();
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => harness.check(SANDBOX_VRN)));
    expect(outcomes.every((outcome) => outcome.kind === "verdict" && outcome.valid)).toBe(true);
    expect(harness.fake.calls).toEqual({ token: 1, lookup: 8 });
  });

  test("a token is renewed shortly before HMRC's expiry, by the injected clock", async () => {
    harness = startHarness();
    await harness.check(SANDBOX_VRN);
    harness.clock.advance(14_400_000 - 61_000);
    await harness.check(SANDBOX_VRN);
    expect(harness.fake.calls.token).toBe(1);
    harness.clock.advance(2_000);
    await harness.check(SANDBOX_VRN);
    expect(harness.fake.calls.token).toBe(2);
  });

  test("a short-lived token is renewed within its lifetime, not after it", async () => {
    harness = startHarness({}, { tokenLifetimeSeconds: 10 });
    await harness.check(SANDBOX_VRN);
    harness.clock.advance(8_999);
    await harness.check(SANDBOX_VRN);
    expect(harness.fake.calls.token).toBe(1);
    harness.clock.advance(2);
    await harness.check(SANDBOX_VRN);
    expect(harness.fake.calls.token).toBe(2);
  });

  test("a token HMRC expired early is replaced and the lookup retried once", async () => {
    harness = startHarness();
    await harness.check(SANDBOX_VRN);
    harness.fake.expireTokens();
    const outcome = await harness.check(SANDBOX_VRN);
    expect(outcome.kind === "verdict" && outcome.valid).toBe(true);
    expect(harness.fake.calls).toEqual({ token: 2, lookup: 3 });
    const [first, second] = harness.fake.issuedTokens();
    expect(harness.fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${second}`);
    expect(second).not.toBe(first);
  });

  test("concurrent callers refused the same stale token refresh it once", async () => {
    harness = startHarness();
    await harness.check(SANDBOX_VRN);
    harness.fake.expireTokens();
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => harness.check(SANDBOX_VRN)));
    expect(outcomes.every((outcome) => outcome.kind === "verdict" && outcome.valid)).toBe(true);
    expect(harness.fake.calls.token).toBe(2);
  });
});
