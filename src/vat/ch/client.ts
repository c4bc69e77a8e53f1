import type { Clock } from "../../kernel/clock.ts";
import type { Logger } from "../../kernel/log.ts";
import { endpoint, exchange, type FetchLike, startDeadline } from "../transport.ts";
import { type UpstreamFault, type UpstreamOutcome, upstreamFault, type VatUpstream } from "../upstream.ts";
import { GET_BY_UID_ACTION, getByUidEnvelope, parseUidResponse, UID_SERVICE_PATH } from "./wire.ts";

export const CH_UID_PRODUCTION_BASE_URL = "https://www.uid-wse.admin.ch";

export type ChUidClientConfig = {
  /** Scheme and host of the UID register's web services; the service path is appended. */
  baseUrl: string;
  clock: Clock;
  log: Logger;
  fetch?: FetchLike;
};

/** How much of an unexpected fault goes into a log line. */
const LOGGED_FAULT_CHARS = 200;

/**
 * The register's own faults: over its per-minute limit, and a UID it refuses to read. Any other
 * is its service failing (and logged: it may be our request).
 */
const FAULTS: Record<string, UpstreamFault> = {
  Request_limit_exceeded: upstreamFault("upstream_rate_limited", "Request_limit_exceeded", false),
  Data_validation_failed: upstreamFault("invalid_input", "Data_validation_failed", false),
};

/**
 * The client of the Swiss UID register's public services (`GetByUID`, interface 5.0), for CHE
 * numbers (`{prefix: "CH", number: "E116281710"}`). A number is registered when a record of its
 * UID is entered in the VAT register and active; a UID the register does not know, or one not
 * registered for VAT, is not. Never throws: transport failures, error pages and faults are
 * UpstreamFaults, never a verdict.
 */
export function createChUidClient(config: ChUidClientConfig): VatUpstream {
  const url = endpoint(config.baseUrl, UID_SERVICE_PATH);
  const fetchFn: FetchLike = config.fetch ?? fetch;
  const { log } = config;
  const headers = { "Content-Type": "text/xml; charset=utf-8", SOAPAction: GET_BY_UID_ACTION };

  return {
    async check(request, options): Promise<UpstreamOutcome> {
      const init = { method: "POST", headers, body: getByUidEnvelope(request.number) };
      const reply = await exchange(fetchFn, url, init, startDeadline(options.timeoutMs, options.signal));
      if ("failure" in reply) {
        return upstreamFault("service_unavailable", reply.failure, reply.failure !== "ABORTED");
      }
      const response = parseUidResponse(reply.body);
      if (response?.kind === "fault") {
        const known = FAULTS[response.error];
        if (known) return known;
        log.warn("ch_uid.fault_needs_attention", {
          fault: response.error.slice(0, LOGGED_FAULT_CHARS),
          httpStatus: reply.status,
        });
        return upstreamFault("service_unavailable", "UNKNOWN_FAULT", false);
      }
      if (reply.status < 200 || reply.status > 299) {
        return upstreamFault("service_unavailable", `HTTP_${reply.status}`, false);
      }
      if (response === null) return upstreamFault("service_unavailable", "UNPARSEABLE", false);
      const registered = response.records.find((record) => record.vatRegistered);
      return {
        kind: "verdict",
        valid: registered !== undefined,
        name: registered?.name ?? null,
        address: registered?.address ?? null,
        checkedAt: new Date(config.clock.now()).toISOString(),
        consultationNumber: null,
        traderMatch: null,
        source: "ch_uid",
      };
    },
  };
}
