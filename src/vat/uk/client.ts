import type { Clock } from "../../kernel/clock.ts";
import { describeFailure } from "../../kernel/failure.ts";
import { type Logger, silentLogger } from "../../kernel/log.ts";
import type {
  UpstreamCallOptions,
  UpstreamCheck,
  UpstreamFault,
  UpstreamOutcome,
  VatUpstream,
} from "../upstream.ts";
import { upstreamFault } from "../upstream.ts";
import { createAccessTokens } from "./access-token.ts";
import { type LookupReading, readLookupReply } from "./lookup-reply.ts";
import { exchange, type Fetch } from "./wire.ts";

export const HMRC_PRODUCTION_BASE_URL = "https://api.service.hmrc.gov.uk";
export const HMRC_SANDBOX_BASE_URL = "https://test-api.service.hmrc.gov.uk";

/** Version 2.0 of "Check a UK VAT number"; HMRC answers 406 to any other Accept header. */
const ACCEPT = "application/vnd.hmrc.2.0+json";
const LOOKUP_PATH = "/organisations/vat/check-vat-number/lookup";

/** The only VRN forms HMRC's lookup accepts: 9 digits, or 12 with a branch suffix. */
const CHECKABLE_VRN = /^(?:\d{9}|\d{12})$/;

export type UkVatClientConfig = {
  /** HMRC_PRODUCTION_BASE_URL, HMRC_SANDBOX_BASE_URL, or a fake's URL. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /**
   * Our own VRN (9 or 12 digits, `GB` prefix and spaces tolerated). When set, every lookup is a
   * "verified check" and HMRC issues a consultation number as proof of it.
   */
  requesterVrn?: string;
  clock: Clock;
  fetch?: Fetch;
  log?: Logger;
  /** Give up on one token request after this many milliseconds (default 10 000). */
  tokenTimeoutMs?: number;
};

/**
 * The client for HMRC's "Check a UK VAT number" API (v2.0, application-restricted OAuth 2.0).
 * Takes `{prefix: "GB", number}` with number the 9 or 12 digits. Throws at construction on a
 * malformed configuration; `check` itself never throws.
 */
export function createUkVatClient(config: UkVatClientConfig): VatUpstream {
  if (config.clientId.trim() === "" || config.clientSecret.trim() === "") {
    throw new Error("the UK VAT client needs an HMRC client id and client secret");
  }
  const requester = config.requesterVrn === undefined ? null : normalizeRequester(config.requesterVrn);
  const baseUrl = config.baseUrl.replace(/\/+$/, "");
  const fetch = config.fetch ?? globalThis.fetch;
  const log = config.log ?? silentLogger;
  const tokens = createAccessTokens({
    baseUrl,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    clock: config.clock,
    fetch,
    log,
    timeoutMs: config.tokenTimeoutMs ?? 10_000,
  });

  const lookup = async (
    number: string,
    token: string,
    signal: AbortSignal,
  ): Promise<LookupReading | null> => {
    const path = requester === null ? `${LOOKUP_PATH}/${number}` : `${LOOKUP_PATH}/${number}/${requester}`;
    const reply = await exchange(fetch, `${baseUrl}${path}`, {
      headers: { Accept: ACCEPT, Authorization: `Bearer ${token}` },
      signal,
    });
    if (reply === null) return null;
    const checkedAt = new Date(config.clock.now()).toISOString();
    return readLookupReply(reply, { requesterSent: requester !== null, checkedAt });
  };

  const checkNumber = async (
    request: UpstreamCheck,
    options: UpstreamCallOptions,
  ): Promise<UpstreamOutcome> => {
    if (request.prefix !== "GB") {
      log.error("hmrc_unsupported_prefix", { prefix: request.prefix });
      return upstreamFault("service_unavailable", "UNSUPPORTED_PREFIX", false);
    }
    // GD/HA numbers (government departments, health authorities) are well-formed but HMRC's API
    // refuses them as it refuses any malformed VRN; answering that locally also keeps the path safe.
    if (!CHECKABLE_VRN.test(request.number)) return upstreamFault("invalid_input", "UNCHECKABLE_VRN", false);

    const deadline = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal]);
    const interrupted = (): UpstreamFault =>
      deadline.aborted
        ? upstreamFault("service_unavailable", "TIMEOUT", true)
        : upstreamFault("service_unavailable", "ABORTED", false);
    const noReply = (): UpstreamFault =>
      signal.aborted ? interrupted() : upstreamFault("service_unavailable", "NETWORK", true);

    let refreshed = false;
    for (;;) {
      if (signal.aborted) return interrupted();
      // The token request is shared with concurrent callers, so it is not cancelled by this
      // caller's signal; this caller just stops waiting for it.
      const token = await untilAborted(tokens.get(), signal);
      if (token === null) return interrupted();
      if (token.kind === "fault") return token;

      const reading = await lookup(request.number, token.value, signal);
      if (reading === null) return noReply();
      if (reading.kind === "answered") return reading.outcome;
      if (reading.kind === "misconfigured") {
        log.error("hmrc_configuration_problem", { detail: reading.fault.detail, reason: reading.alarm });
        return reading.fault;
      }
      tokens.discard(token.value);
      if (refreshed) {
        log.error("hmrc_token_refused_after_refresh", { detail: reading.detail });
        return upstreamFault("service_unavailable", reading.detail, false);
      }
      refreshed = true;
    }
  };

  return {
    async check(request, options) {
      try {
        return await checkNumber(request, options);
      } catch (error) {
        log.error("hmrc_client_bug", describeFailure(error));
        return upstreamFault("service_unavailable", "CLIENT_ERROR", false);
      }
    },
  };
}

function normalizeRequester(raw: string): string {
  const digits = raw.replace(/\s+/g, "").replace(/^GB/i, "");
  if (!CHECKABLE_VRN.test(digits)) {
    throw new Error("the requester VRN must be a UK VAT number of 9 or 12 digits");
  }
  return digits;
}

/** Settles as the work does, or resolves with null as soon as the signal aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(null);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
