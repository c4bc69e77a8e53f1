import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import type { AuthoritySource } from "../vat/authorities.ts";
import type { UpstreamCheck, UpstreamOutcome, VatUpstream } from "../vat/upstream.ts";

/**
 * Everything the service counts, in one Prometheus registry per app (so tests can build
 * several apps side by side). Served at GET /metrics.
 */
export type Metrics = ReturnType<typeof createMetrics>;

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const seconds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
  return {
    registry,
    requests: new Counter({
      name: "http_requests_total",
      help: "HTTP requests by route, method and status",
      labelNames: ["route", "method", "status"] as const,
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP request latency by route and method",
      labelNames: ["route", "method"] as const,
      buckets: seconds,
      registers: [registry],
    }),
    upstreamCalls: new Counter({
      name: "vat_upstream_calls_total",
      help: "Calls to VIES (by member state) and to the national services (uk_authority, ch_uid, no_brreg), by outcome (valid, invalid, or the fault code) and by the door that answered (VIES: soap or rest)",
      labelNames: ["authority", "member_state", "outcome", "path"] as const,
      registers: [registry],
    }),
    upstreamDuration: new Histogram({
      name: "vat_upstream_call_duration_seconds",
      help: "Latency of calls to VIES and to the national services, by member state (the prefix)",
      labelNames: ["authority", "member_state"] as const,
      buckets: seconds,
      registers: [registry],
    }),
    vatAnswers: new Counter({
      name: "vat_answers_total",
      help: "VAT components answered, by how: fresh (upstream), cache_hit, stale (last-known-good), syntax, error",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    vatCacheLookups: new Counter({
      name: "vat_cache_lookups_total",
      help: "VAT cache lookups of well-formed numbers: hit (fresh), stale (only a last-known-good copy), miss",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    billedUnits: new Counter({
      name: "billed_units_total",
      help: "Billable validations recorded, by plan",
      labelNames: ["plan"] as const,
      registers: [registry],
    }),
    limitRejections: new Counter({
      name: "limit_rejections_total",
      help: "Requests refused by the per-minute limit (rate_limited) or the monthly quota (quota_exceeded)",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    batchItems: new Counter({
      name: "batch_items_total",
      help: "Batch items this instance finished, by status: done or failed",
      labelNames: ["status"] as const,
      registers: [registry],
    }),
    monitorChecks: new Counter({
      name: "monitor_checks_total",
      help: "Monitors' checks this instance took up, by outcome: answered, outage, quota, dropped or unscheduled",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    keyLookups: new Counter({
      name: "key_lookups_total",
      help: "API keys looked up in the database (not held in process), by result: found or missing",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    storeErrors: new Counter({
      name: "store_errors_total",
      help: "Failures of the database or of the cache/shared store, by store and operation",
      labelNames: ["store", "operation"] as const,
      registers: [registry],
    }),
  };
}

/** An upstream client whose every call is counted and timed. */
export function observedUpstream(
  upstream: VatUpstream,
  metrics: Metrics,
  authority: AuthoritySource,
): VatUpstream {
  return {
    async check(request: UpstreamCheck, options): Promise<UpstreamOutcome> {
      const started = performance.now();
      const outcome = await upstream.check(request, options);
      const labels = { authority, member_state: request.prefix };
      metrics.upstreamDuration.observe(labels, (performance.now() - started) / 1000);
      const result = outcome.kind === "verdict" ? (outcome.valid ? "valid" : "invalid") : outcome.code;
      metrics.upstreamCalls.inc({ ...labels, outcome: result, path: outcome.path ?? "" });
      return outcome;
    },
  };
}
