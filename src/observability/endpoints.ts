import { createHash, timingSafeEqual } from "node:crypto";
import { Elysia, t } from "elysia";
import { raceDeadline } from "../kernel/deadline.ts";
import { stringEnum } from "../kernel/enum-schema.ts";
import { ApiError, ErrorResponseSchema } from "../kernel/errors.ts";
import type { Metrics } from "./metrics.ts";

const PROBE_TIMEOUT_MS = 1000;

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  return raceDeadline(work, ms, () => {
    throw new Error(`no answer within ${ms} ms`);
  });
}

export const ReadySchema = t.Object({
  status: t.Literal("ready"),
  database: t.Literal("ok"),
  cache: stringEnum(["ok", "unreachable"]),
});

/**
 * GET /ready, the readiness probe: 200 while the database answers, 503 `service_unavailable`
 * when it does not (the service cannot meter requests without it). A cache that does not
 * answer is reported but keeps the instance ready: VAT answers then come from VIES directly.
 */
export function readiness(deps: { pingDatabase(): Promise<void>; pingStore(): Promise<void> }) {
  return new Elysia({ name: "readiness" }).get(
    "/ready",
    async () => {
      const [database, cache] = await Promise.all([
        within(deps.pingDatabase(), PROBE_TIMEOUT_MS).then(
          () => "ok" as const,
          () => "unreachable" as const,
        ),
        within(deps.pingStore(), PROBE_TIMEOUT_MS).then(
          () => "ok" as const,
          () => "unreachable" as const,
        ),
      ]);
      if (database !== "ok") {
        throw new ApiError("service_unavailable", `the database is unreachable (cache: ${cache})`, {
          retryAfter: 5,
        });
      }
      return { status: "ready" as const, database, cache };
    },
    {
      response: { 200: ReadySchema, 503: ErrorResponseSchema },
      detail: { hide: true },
    },
  );
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * GET /metrics in the Prometheus text format, for `Authorization: Bearer <token>` only: it
 * tells anyone who can read it billed units per plan and VIES's failure rates. With no token
 * configured the route is off (404).
 */
export function metricsEndpoint(metrics: Metrics, token: string | null) {
  const expected = token === null ? null : digest(`Bearer ${token}`);
  return new Elysia({ name: "metrics-endpoint" }).get(
    "/metrics",
    async ({ request }) => {
      if (expected === null) {
        throw new ApiError("not_found", "metrics are off: set METRICS_TOKEN to serve them here");
      }
      const offered = request.headers.get("authorization") ?? "";
      if (!timingSafeEqual(digest(offered), expected)) {
        throw new ApiError("unauthorized", "send Authorization: Bearer <METRICS_TOKEN>");
      }
      return new Response(await metrics.registry.metrics(), {
        headers: { "content-type": metrics.registry.contentType },
      });
    },
    { response: { 200: t.String() }, detail: { hide: true } },
  );
}
