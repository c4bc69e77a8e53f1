import type { Clock } from "../../kernel/clock.ts";
import type { Logger } from "../../kernel/log.ts";
import { parseJsonObject } from "../json.ts";
import { type UpstreamFault, upstreamFault } from "../upstream.ts";
import { exchange, type Fetch, faultDetail, type HmrcReply, isTransientStatus, text } from "./wire.ts";

/** The scope the "Check a UK VAT number" API (v2.0) requires of its application-restricted tokens. */
export const HMRC_VAT_SCOPE = "read:vat";

// Renew a little before HMRC's expiry so a token never lapses between our check and its use.
const REFRESH_MARGIN_MS = 60_000;

export type AccessTokenConfig = {
  /** HMRC API base URL without a trailing slash. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  clock: Clock;
  fetch: Fetch;
  log: Logger;
  /** Give up on one token request after this many milliseconds. */
  timeoutMs: number;
};

export type AccessToken = { kind: "token"; value: string };

/** How the client should treat a reply of the token endpoint. */
export type TokenReading =
  | { kind: "issued"; token: string; lifetimeMs: number }
  | { kind: "failed"; fault: UpstreamFault }
  /** HMRC refused our client credentials: operators must hear about it. */
  | { kind: "misconfigured"; fault: UpstreamFault; alarm: string };

/** Application-restricted OAuth 2.0 tokens (client credentials grant), fetched once and reused. */
export interface AccessTokens {
  /**
   * A bearer token: the cached one while it is fresh, otherwise a new one. Concurrent callers
   * share a single token request. Never rejects: a failure is an UpstreamFault.
   */
  get(): Promise<AccessToken | UpstreamFault>;
  /** Forgets `token` after the API refused it, unless a newer token has replaced it already. */
  discard(token: string): void;
}

/** Creates the token cache for one set of HMRC client credentials. */
export function createAccessTokens(config: AccessTokenConfig): AccessTokens {
  let cached: { value: string; refreshAt: number } | null = null;
  let pending: Promise<AccessToken | UpstreamFault> | null = null;

  const requestToken = async (): Promise<AccessToken | UpstreamFault> => {
    const askedAt = config.clock.now();
    const signal = AbortSignal.timeout(config.timeoutMs);
    const reply = await exchange(config.fetch, `${config.baseUrl}/oauth/token`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({
        client_id: config.clientId,
        client_secret: config.clientSecret,
        grant_type: "client_credentials",
        scope: HMRC_VAT_SCOPE,
      }).toString(),
      signal,
    });
    if (reply === null) {
      return upstreamFault("service_unavailable", signal.aborted ? "TOKEN_TIMEOUT" : "TOKEN_NETWORK", true);
    }
    const reading = readTokenReply(reply);
    if (reading.kind === "misconfigured") {
      config.log.error("hmrc_token_refused", { detail: reading.fault.detail, reason: reading.alarm });
    }
    if (reading.kind !== "issued") return reading.fault;
    const margin = Math.min(REFRESH_MARGIN_MS, reading.lifetimeMs / 10);
    cached = { value: reading.token, refreshAt: askedAt + reading.lifetimeMs - margin };
    return { kind: "token", value: reading.token };
  };

  return {
    get() {
      if (cached !== null && config.clock.now() < cached.refreshAt) {
        return Promise.resolve({ kind: "token", value: cached.value });
      }
      pending ??= requestToken().finally(() => {
        pending = null;
      });
      return pending;
    },
    discard(token) {
      if (cached?.value === token) cached = null;
    },
  };
}

/** Translates one reply of `POST /oauth/token` into a token or a fault. */
export function readTokenReply(reply: HmrcReply): TokenReading {
  const parsed = parseJsonObject(reply.body);
  if (reply.status === 200) {
    const token = text(parsed?.access_token);
    const type = text(parsed?.token_type);
    const expiresIn = parsed?.expires_in;
    const usable =
      token !== null &&
      (type === null || type.toLowerCase() === "bearer") &&
      typeof expiresIn === "number" &&
      Number.isFinite(expiresIn) &&
      expiresIn > 0;
    return usable
      ? { kind: "issued", token, lifetimeMs: expiresIn * 1000 }
      : { kind: "failed", fault: upstreamFault("service_unavailable", "TOKEN_UNPARSEABLE", false) };
  }

  // The OAuth server answers `{"error", "error_description"}`; the platform in front of it
  // (throttling, outages) answers `{"code", "message"}`.
  const error = text(parsed?.error) ?? text(parsed?.code);
  const fault = (retryable: boolean) =>
    upstreamFault(
      reply.status === 429 ? "upstream_rate_limited" : "service_unavailable",
      faultDetail("TOKEN_", reply.status, error),
      retryable,
    );
  if (reply.status === 429) return { kind: "failed", fault: fault(true) };
  if (reply.status >= 400 && reply.status < 500) {
    const description = text(parsed?.error_description) ?? text(parsed?.message) ?? "(no description)";
    return {
      kind: "misconfigured",
      fault: fault(false),
      alarm: `HMRC refused the client credentials with ${reply.status} ${error ?? "(no error code)"}: ${description}`,
    };
  }
  return { kind: "failed", fault: fault(isTransientStatus(reply.status)) };
}
