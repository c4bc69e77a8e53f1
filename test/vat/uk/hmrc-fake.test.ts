import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type HmrcFake, startHmrcFake } from "../../fakes/hmrc.ts";
import { CLIENT_ID, CLIENT_SECRET, SANDBOX_COMPANY, SANDBOX_VRN } from "./harness.ts";

// The fake is only worth trusting if it refuses what HMRC refuses: these talk to it with raw
// HTTP, independently of the client.

const V2 = "application/vnd.hmrc.2.0+json";
let fake: HmrcFake;

beforeEach(() => {
  fake = startHmrcFake({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  fake.addNumber(SANDBOX_VRN, SANDBOX_COMPANY);
});
afterEach(() => fake.stop());

function tokenRequest(fields: Record<string, string>, contentType = "application/x-www-form-urlencoded") {
  return fetch(`${fake.baseUrl}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": contentType },
    body: new URLSearchParams(fields).toString(),
  });
}

async function token(scope = "read:vat"): Promise<string> {
  const response = await tokenRequest({
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    grant_type: "client_credentials",
    scope,
  });
  const body = (await response.json()) as { access_token: string };
  return body.access_token;
}

function lookup(path: string, headers: Record<string, string>) {
  return fetch(`${fake.baseUrl}/organisations/vat/check-vat-number/lookup/${path}`, { headers });
}

describe("token endpoint", () => {
  test("issues a bearer token for four hours with the requested scope", async () => {
    const response = await tokenRequest({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_type: "client_credentials",
      scope: "read:vat",
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: "bearer",
      expires_in: 14_400,
      scope: "read:vat",
    });
    expect(fake.calls.token).toBe(1);
  });

  test("refuses wrong client credentials with invalid_client", async () => {
    const response = await tokenRequest({
      client_id: CLIENT_ID,
      client_secret: "wrong",
      grant_type: "client_credentials",
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: "invalid_client",
      error_description: "invalid client id or secret",
    });
  });

  test("refuses other grant types, unknown scopes and non-form bodies", async () => {
    const base = { client_id: CLIENT_ID, client_secret: CLIENT_SECRET };
    const grant = await tokenRequest({ ...base, grant_type: "authorization_code" });
    expect(grant.status).toBe(400);
    expect(((await grant.json()) as { error: string }).error).toBe("unsupported_grant_type");
    const scope = await tokenRequest({ ...base, grant_type: "client_credentials", scope: "write:vat" });
    expect(((await scope.json()) as { error: string }).error).toBe("invalid_scope");
    const asJson = await tokenRequest({ ...base, grant_type: "client_credentials" }, "application/json");
    expect(((await asJson.json()) as { error: string }).error).toBe("invalid_request");
  });
});

describe("lookup endpoints", () => {
  test("answers a registered number with name, address and processing date", async () => {
    const response = await lookup(SANDBOX_VRN, { Accept: V2, Authorization: `Bearer ${await token()}` });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      target: {
        name: "Credite Sberger Donal Inc.",
        vatNumber: SANDBOX_VRN,
        address: { line1: "131B Barton Hamlet", postcode: "SW97 5CK", countryCode: "GB" },
      },
      processingDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
    });
  });

  test("adds requester and a nine-letter consultation number for a verified check", async () => {
    fake.addNumber("146295999727", { name: "Requester", lines: ["1 Road"] });
    const response = await lookup(`${SANDBOX_VRN}/146295999727`, {
      Accept: V2,
      Authorization: `Bearer ${await token()}`,
    });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body.requester).toBe("146295999727");
    expect(body.consultationNumber).toMatch(/^[A-Za-z]{9}$/);
  });

  test("refuses a missing or other Accept header with 406 before looking at credentials", async () => {
    for (const accept of [undefined, "application/json", "application/vnd.hmrc.1.0+json"]) {
      const response = await lookup(SANDBOX_VRN, accept === undefined ? {} : { Accept: accept });
      expect(response.status).toBe(406);
      expect(await response.json()).toEqual({
        code: "ACCEPT_HEADER_INVALID",
        message: "The accept header is missing or invalid",
      });
    }
  });

  test("refuses missing, unknown and expired tokens with 401", async () => {
    const missing = await lookup(SANDBOX_VRN, { Accept: V2 });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { code: string }).code).toBe("MISSING_CREDENTIALS");
    const unknown = await lookup(SANDBOX_VRN, { Accept: V2, Authorization: "Bearer not-issued" });
    expect(((await unknown.json()) as { code: string }).code).toBe("INVALID_CREDENTIALS");
    const issued = await token();
    fake.expireTokens();
    const expired = await lookup(SANDBOX_VRN, { Accept: V2, Authorization: `Bearer ${issued}` });
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { code: string }).code).toBe("INVALID_CREDENTIALS");
  });

  test("refuses a token without the read:vat scope with 403 INVALID_SCOPE", async () => {
    const response = await lookup(SANDBOX_VRN, { Accept: V2, Authorization: `Bearer ${await token("")}` });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe("INVALID_SCOPE");
  });

  test("answers HMRC's errors for malformed, unknown and unregistered numbers", async () => {
    const headers = { Accept: V2, Authorization: `Bearer ${await token()}` };
    const malformed = await lookup("GD123", headers);
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({
      code: "INVALID_REQUEST",
      message: "Invalid targetVrn - Vrn parameters should be 9 or 12 digits",
    });
    const unknown = await lookup("123456789", headers);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      code: "NOT_FOUND",
      message: "targetVrn does not match a registered company",
    });
    const strangerRequester = await lookup(`${SANDBOX_VRN}/999999973`, headers);
    expect(strangerRequester.status).toBe(403);
    expect(await strangerRequester.json()).toEqual({
      code: "INVALID_REQUEST",
      message: "requesterVrn does not match a registered company",
    });
  });

  test("injected faults last for the given number of requests and are counted", async () => {
    const headers = { Accept: V2, Authorization: `Bearer ${await token()}` };
    fake.setBehaviour("lookup", "throttled", { times: 1 });
    expect((await lookup(SANDBOX_VRN, headers)).status).toBe(429);
    expect((await lookup(SANDBOX_VRN, headers)).status).toBe(200);
    expect(fake.calls).toEqual({ token: 1, lookup: 2 });
  });
});
