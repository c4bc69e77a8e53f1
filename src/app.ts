import { Elysia, t } from "elysia";
import type { Authenticator } from "./accounts/authenticator.ts";
import type { Meter } from "./accounts/meter.ts";
import type { RateLimiter } from "./accounts/rate-limit.ts";
import { BATCH_WEBHOOKS, type BatchRoutesDeps, batchRoutes } from "./batches/routes.ts";
import type { Config } from "./config.ts";
import { consolePages } from "./console/routes.ts";
import { authentication } from "./http/auth.ts";
import { parseJsonObjectBody } from "./http/body.ts";
import {
  AFTER_AUTHENTICATION,
  BODY_TOO_LARGE,
  docs,
  errorExample,
  errorResponses,
  HEADERS,
  jsonExample,
  jsonExamples,
  jsonRequestBody,
  KEYED_ROUTE_RESPONSES,
} from "./http/docs.ts";
import { errorHandling } from "./http/errors.ts";
import { HEALTH, USAGE, VALIDATE_RESPONSES, VALIDATION_RECORD, VIES_STATUS } from "./http/examples.ts";
import { models } from "./http/models.ts";
import { REQUEST_ID_PATTERN, requestIds } from "./http/request-id.ts";
import { answerValidation } from "./http/validation-answer.ts";
import type { IbanBuilder } from "./iban/build/build.ts";
import { ibanBuildRoute } from "./iban/build/route.ts";
import type { IbanEngine } from "./iban/engine.ts";
import { idempotency } from "./idempotency/plugin.ts";
import type { IdempotencyStore } from "./idempotency/store.ts";
import type { Clock } from "./kernel/clock.ts";
import { ApiError } from "./kernel/errors.ts";
import type { Logger } from "./kernel/log.ts";
import { MONITOR_WEBHOOKS, type MonitorRoutesDeps, monitorRoutes } from "./monitors/routes.ts";
import { metricsEndpoint, readiness } from "./observability/endpoints.ts";
import type { Metrics } from "./observability/metrics.ts";
import { requestLogging } from "./observability/request-log.ts";
import type { ValidationRecords } from "./validation/records.ts";
import { usageReport } from "./validation/usage.ts";
import { validate } from "./validation/validate.ts";
import type { RegisterWatch } from "./vat/registers.ts";
import type { VatService } from "./vat/service.ts";
import type { StatusService } from "./vat/status.ts";

/** Everything the HTTP app needs; `src/services.ts` builds the real ones. */
export type AppDeps = {
  config: Config;
  clock: Clock;
  log: Logger;
  iban: IbanEngine;
  /** Builds IBANs from domestic account numbers (POST /iban/build). */
  ibanBuilder: IbanBuilder;
  vat: VatService;
  status: StatusService;
  /** The national services beside VIES, as this instance last found them (GET /status). */
  registers: Pick<RegisterWatch, "rows">;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  meter: Meter;
  metrics: Metrics;
  /** Resolves when the database answers; rejects otherwise. */
  pingDatabase(): Promise<void>;
  /** Resolves when the shared store answers; rejects otherwise. */
  pingStore(): Promise<void>;
  /** The records of the VAT checks the authority answered (GET /validations/{id}). */
  records: ValidationRecords;
  batches: BatchRoutesDeps;
  /** The answers kept under `Idempotency-Key`s. */
  idempotency: IdempotencyStore;
  monitors: MonitorRoutesDeps;
};

const API_DESCRIPTION =
  "Validates EU VAT numbers against VIES (with caching and outage fallback) and IBANs offline " +
  "(checksum, structure, components, SEPA, bank and BIC, national check digits). Every error has the body {error: {code, message}}.";

/** Builds the HTTP app from its dependencies, without listening. */
export function buildApp(deps: AppDeps) {
  const auth = authentication({ authenticator: deps.authenticator, rateLimiter: deps.rateLimiter });
  const requestLog = requestLogging({ log: deps.log, metrics: deps.metrics });
  const keyed = idempotency(
    {
      store: deps.idempotency,
      log: deps.log,
      onStoreError: (operation) =>
        deps.metrics.storeErrors.inc({ store: "database", operation: `idempotency_${operation}` }),
    },
    auth,
  );
  // Every answer is built field by field from its schema's types, so Elysia's normalization (a
  // copy of each response without undeclared fields) would only cost: 3 µs of CPU, 8 % of a
  // request's. The contract tests check that no answer carries a field its schema lacks.
  return new Elysia({ normalize: false })
    .use(requestIds())
    .use(requestLog.plugin)
    .use(errorHandling({ log: deps.log, requestLog }))
    .use(
      docs({
        version: "1.0.0",
        description: API_DESCRIPTION,
        webhooks: [...BATCH_WEBHOOKS, ...MONITOR_WEBHOOKS],
      }),
    )
    .use(consolePages())
    .model(models)
    .use(keyed)
    .use(batchRoutes(deps.batches, keyed))
    .use(monitorRoutes(deps.monitors, keyed))
    .use(ibanBuildRoute({ ...deps, builder: deps.ibanBuilder }, keyed))
    .post(
      "/validate",
      async ({ body, caller, set, requestId, request }) =>
        answerValidation(await validate(deps, caller.account, body, requestId), {
          account: caller.account,
          headers: set.headers,
          request,
        }),
      {
        idempotent: true,
        parse: ({ request }) => parseJsonObjectBody(request, deps.config.MAX_BODY_BYTES),
        body: "ValidateRequest",
        response: { 200: "ValidateResponse", ...errorResponses(400, 401, 403, 413, 429, 503) },
        detail: {
          summary: "Validate a VAT number and/or an IBAN",
          tags: ["Validation"],
          description:
            "200 whenever at least one component produced a definitive answer; otherwise the status of the first component error. With `vat`, `match` asks whether the registered name and address are the ones you were given: the answer's `vat.match` says so per field, by the member state (`authority`) or compared here (`local`).",
          security: [{ ApiKey: [] }],
          requestBody: jsonRequestBody("ValidateRequest", {
            vat: { summary: "A VAT number", value: { vat: "NL854265259B01" } },
            match: {
              summary: "A VAT number, and the name and city you were given",
              value: { vat: "NL854265259B01", match: { name: "GitHub BV", city: "Amsterdam" } },
            },
            iban: { summary: "An IBAN, spaced as printed", value: { iban: "DE89 3704 0044 0532 0130 00" } },
          }),
          responses: {
            200: {
              description:
                "At least one component produced a definitive answer (`valid` true or false); a component that could not be answered carries its own `error`",
              headers: { ...HEADERS.rateLimit, ...HEADERS.quota, ...HEADERS.gatewayBilling },
              ...jsonExamples(VALIDATE_RESPONSES),
            },
            400: {
              description:
                "Malformed body (a `match` without `vat`, or with a field it does not take, included), or no component could be answered because of its input: `invalid_request`, `invalid_format`, `invalid_country`, `invalid_length`",
              headers: AFTER_AUTHENTICATION,
              ...errorExample(
                "invalid_format",
                "NL VAT numbers are 9 digits, the letter B and 2 digits (not B00)",
              ),
            },
            401: KEYED_ROUTE_RESPONSES[401],
            403: KEYED_ROUTE_RESPONSES[403],
            413: BODY_TOO_LARGE,
            429: {
              description:
                "`rate_limited` (per-minute limit) or `quota_exceeded` (monthly quota used up; cached answers are still served)",
              headers: { ...HEADERS.retryAfter, ...AFTER_AUTHENTICATION },
              ...errorExample(
                "quota_exceeded",
                "the monthly quota is used up and this request needs a fresh, billable check; answers the cache holds as fresh are still served",
              ),
            },
            503: {
              description:
                "No component could be answered: VIES, the UK service or the member state is unavailable and nothing is cached (`service_unavailable`, `member_state_unavailable`, `upstream_rate_limited`). `Retry-After` is sent when retrying can help",
              headers: { ...HEADERS.retryAfter, ...AFTER_AUTHENTICATION },
              ...errorExample(
                "member_state_unavailable",
                "the VAT system of Netherlands is not answering; try again later",
              ),
            },
          },
        },
      },
    )
    .get(
      "/validations/:request_id",
      async ({ params, caller }) => {
        const record = await deps.records.find(caller.account.keyId, params.request_id);
        if (!record) throw new ApiError("not_found", `no validation record ${params.request_id}`);
        return record;
      },
      {
        caller: true,
        params: t.Object({
          request_id: t.String({ pattern: REQUEST_ID_PATTERN, examples: ["bat_5f0c6e1d2a9b8c7d6e5f4a3b.0"] }),
        }),
        response: { 200: "ValidationRecord", ...errorResponses(401, 403, 404, 429, 503) },
        detail: {
          summary: "The stored record of a VAT check the authority answered: proof for an audit",
          tags: ["Validation"],
          description:
            "For a /validate answer, its `request_id`; for a batch item, `{batch_id}.{index}`. Fresh answers of the authority only: a cache hit or a stale copy repeats the `checked_at` and consultation number of the check it comes from. Kept VALIDATION_RECORD_DAYS (10 years by default).",
          security: [{ ApiKey: [] }],
          responses: {
            200: { description: "The record", headers: HEADERS.rateLimit, ...jsonExample(VALIDATION_RECORD) },
            ...KEYED_ROUTE_RESPONSES,
            404: {
              description: "`not_found`: no record of this key has this id",
              ...errorExample("not_found", "no validation record 7d3f9a52-1c4e-4b8a-9f61-2e5d8c0b7a14"),
            },
          },
        },
      },
    )
    .get("/usage", ({ caller }) => usageReport(deps.meter, caller.account, deps.clock.now(), deps.metrics), {
      caller: true,
      response: { 200: "Usage", ...errorResponses(401, 403, 429, 503) },
      detail: {
        summary: "Plan, usage and remaining quota of the calling key",
        tags: ["Account"],
        description:
          "What this period has used of the key's monthly quota, when it resets, and the plan's limits. Free: it is neither billed nor counted in `requests_this_month`.",
        security: [{ ApiKey: [] }],
        responses: {
          200: {
            description: "Plan, usage and remaining quota of the calling key; this call is not counted",
            headers: HEADERS.rateLimit,
            ...jsonExample(USAGE),
          },
          ...KEYED_ROUTE_RESPONSES,
        },
      },
    })
    .get(
      "/status",
      async ({ set }) => {
        const outcome = await deps.status.get();
        if (!outcome.ok) {
          throw new ApiError("service_unavailable", "the VIES status endpoint is unreachable", {
            retryAfter: 30,
          });
        }
        // Clients and proxies may keep it for as long as this service would serve it unchanged.
        const ageSeconds = (deps.clock.now() - Date.parse(outcome.body.checked_at)) / 1000;
        const maxAge = Math.max(0, Math.floor(deps.config.STATUS_CACHE_TTL_SECONDS - ageSeconds));
        set.headers["cache-control"] = `public, max-age=${maxAge}`;
        return { ...outcome.body, registers: deps.registers.rows() };
      },
      {
        response: { 200: "ViesStatus", ...errorResponses(503) },
        detail: {
          summary:
            "Live VIES availability per member state (cached for 60 seconds), and the national services beside it",
          tags: ["Operations"],
          description:
            "Whether VIES and each member state's service answer right now, as VIES reports it; `raw` is VIES's own word. No key needed.",
          security: [],
          responses: {
            200: {
              description:
                "Live VIES availability per member state, cached for 60 seconds; a row per national service (GB, CH, NO) as this instance last found it",
              headers: HEADERS.cacheControl,
              ...jsonExample(VIES_STATUS),
            },
            503: {
              description: "`service_unavailable`: the VIES status endpoint is unreachable",
              headers: HEADERS.retryAfter,
              ...errorExample("service_unavailable", "the VIES status endpoint is unreachable"),
            },
          },
        },
      },
    )
    .get("/health", () => ({ status: "ok" as const, registry_version: deps.iban.registryVersion }), {
      response: { 200: "Health" },
      detail: {
        summary: "Liveness probe",
        tags: ["Operations"],
        description:
          "Answers while the process serves requests, without touching its stores (`/ready` checks those). No key needed.",
        security: [],
        responses: { 200: { description: "The service is alive", ...jsonExample(HEALTH) } },
      },
    })
    .use(readiness({ pingDatabase: deps.pingDatabase, pingStore: deps.pingStore }))
    .use(metricsEndpoint(deps.metrics, deps.config.METRICS_TOKEN ?? null));
}

export type App = ReturnType<typeof buildApp>;
