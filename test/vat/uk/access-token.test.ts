import { afterEach, describe, expect, test } from "bun:test";
import { silentLogger } from "../../../src/kernel/log.ts";
import { type AccessTokens, createAccessTokens, readTokenReply } from "../../../src/vat/uk/access-token.ts";
import { type HmrcFake, startHmrcFake } from "../../fakes/hmrc.ts";
import { manualClock } from "../../support/manual-clock.ts";
import { CLIENT_ID, CLIENT_SECRET, START } from "./harness.ts";

const reply = (status: number, body: unknown) => ({
  status,
  body: typeof body === "string" ? body : JSON.stringify(body),
});

describe("token endpoint replies", () => {
  test("HMRC's documented success gives the token and its lifetime", () => {
    const body = {
      access_token: "QGbWG8KckncuwwD4uYXgWxF4HQvuPmrmUqKgkpQP",
      token_type: "bearer",
      expires_in: 14400,
      scope: "read:vat",
    };
    expect(readTokenReply(reply(200, body))).toEqual({
      kind: "issued",
      token: "QGbWG8KckncuwwD4uYXgWxF4HQvuPmrmUqKgkpQP",
      lifetimeMs: 14_400_000,
    });
  });

  test("a 200 without a usable token or lifetime is TOKEN_UNPARSEABLE", () => {
    const bodies = [
      "<html>portal</html>",
      { token_type: "bearer", expires_in: 14400 },
      { access_token: "abc", token_type: "mac", expires_in: 14400 },
      { access_token: "abc", token_type: "bearer" },
      { access_token: "abc", token_type: "bearer", expires_in: 0 },
      { access_token: "abc", token_type: "bearer", expires_in: "14400" },
    ];
    for (const body of bodies) {
      expect(readTokenReply(reply(200, body))).toEqual({
        kind: "failed",
        fault: { kind: "fault", code: "service_unavailable", detail: "TOKEN_UNPARSEABLE", retryable: false },
      });
    }
  });

  test("refused credentials are a configuration fault with an alarm", () => {
    expect(
      readTokenReply(
        reply(401, { error: "invalid_client", error_description: "invalid client id or secret" }),
      ),
    ).toEqual({
      kind: "misconfigured",
      fault: {
        kind: "fault",
        code: "service_unavailable",
        detail: "TOKEN_HTTP_401_invalid_client",
        retryable: false,
      },
      alarm: expect.stringContaining("invalid client id or secret"),
    });
    const scope = readTokenReply(
      reply(400, { error: "invalid_scope", error_description: "scope is invalid" }),
    );
    expect(scope.kind === "misconfigured" && scope.fault.detail).toBe("TOKEN_HTTP_400_invalid_scope");
  });

  test("throttling and server errors are plain failures", () => {
    expect(readTokenReply(reply(429, { code: "MESSAGE_THROTTLED_OUT" }))).toEqual({
      kind: "failed",
      fault: {
        kind: "fault",
        code: "upstream_rate_limited",
        detail: "TOKEN_HTTP_429_MESSAGE_THROTTLED_OUT",
        retryable: true,
      },
    });
    expect(readTokenReply(reply(503, "<html>down</html>"))).toEqual({
      kind: "failed",
      fault: { kind: "fault", code: "service_unavailable", detail: "TOKEN_HTTP_503", retryable: true },
    });
    expect(readTokenReply(reply(500, { error: "server_error" }))).toEqual({
      kind: "failed",
      fault: {
        kind: "fault",
        code: "service_unavailable",
        detail: "TOKEN_HTTP_500_server_error",
        retryable: false,
      },
    });
  });
});

describe("token cache", () => {
  let fake: HmrcFake;
  afterEach(() => fake.stop());

  const start = (): AccessTokens => {
    fake = startHmrcFake({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    return createAccessTokens({
      baseUrl: fake.baseUrl,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clock: manualClock(START),
      fetch,
      log: silentLogger,
      timeoutMs: 1_000,
    });
  };
  const value = (result: Awaited<ReturnType<AccessTokens["get"]>>) =>
    result.kind === "token" ? result.value : null;

  test("concurrent gets share one request and one token", async () => {
    const tokens = start();
    const results = await Promise.all([tokens.get(), tokens.get(), tokens.get()]);
    expect(new Set(results.map(value)).size).toBe(1);
    expect(fake.calls.token).toBe(1);
  });

  test("discarding a token fetches a new one; a late discard of the old one keeps the new", async () => {
    const tokens = start();
    const first = value(await tokens.get()) ?? "";
    tokens.discard(first);
    const second = value(await tokens.get());
    expect(second).not.toBe(first);
    tokens.discard(first);
    expect(value(await tokens.get())).toBe(second);
    expect(fake.calls.token).toBe(2);
  });
});
