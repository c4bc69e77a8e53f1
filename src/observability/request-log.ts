import { Elysia } from "elysia";
import { ibanIsBillable } from "../accounts/billing.ts";
import { pathOf } from "../http/path.ts";
import { routeOf } from "../http/routes.ts";
import type { IbanResult } from "../iban/schema.ts";
import type { ErrorCode } from "../kernel/errors.ts";
import type { Logger } from "../kernel/log.ts";
import type { VatResult } from "../vat/schema.ts";
import type { Metrics } from "./metrics.ts";

/** What the handling of one request learned, for its log line and its metrics. */
export type RequestNote = {
  keyId: string;
  plan: string;
  billable: boolean;
  status: number;
  error: ErrorCode;
  vat: VatResult;
  iban: IbanResult;
  upstream: { ms: number; attempts: number; detail: string | null; shared: boolean; path: string | null };
  /** With an `Idempotency-Key`: whether the request ran or was answered with a kept answer. */
  idempotency: "ran" | "replayed";
};

const notes = new WeakMap<Request, Partial<RequestNote> & { started: number }>();

/** Records facts about a request for its log line; any layer may add what it knows. */
export function noteRequest(request: Request, facts: Partial<RequestNote>): void {
  const note = notes.get(request);
  if (note) Object.assign(note, facts);
}

/** `DE89…3000`: enough to recognise an IBAN in a log, not enough to use it. */
export function maskIban(iban: string): string {
  return iban.length <= 8 ? "…" : `${iban.slice(0, 4)}…${iban.slice(-4)}`;
}

function vatOutcome(vat: VatResult): string {
  if (vat.stale) return "stale";
  if (vat.cached) return "cache_hit";
  if (vat.source === "syntax") return "syntax";
  if (vat.valid !== null && vat.error === null) return "fresh";
  return "error";
}

/** `checked` when the checksum ran (valid or not, billable), `rejected` when the input never got that far. */
function ibanOutcome(iban: IbanResult): string {
  return ibanIsBillable(iban) ? "checked" : "rejected";
}

/** How a request was answered, for its log line. */
type Answer = { status: number; requestId: unknown; route: string };

/**
 * One structured log line per request (request id, method, route, status, duration, key id,
 * plan, billable, each component's outcome and source, upstream time) and the request
 * metrics. IBANs appear masked, VAT numbers and secrets not at all.
 *
 * Answers of a route are logged by a `mapResponse` hook, in the request's own step; errors by
 * the error handler, which calls `answered` (its responses skip the hooks). An `afterResponse`
 * hook would see both, but costs a deferred task per request: 3 µs of CPU, a tenth of a
 * request's.
 */
export function requestLogging(options: { log: Logger; metrics: Metrics }) {
  const { log, metrics } = options;
  const answered = (request: Request, answer: Answer) => {
    const note = notes.get(request);
    if (!note) return;
    notes.delete(request);
    const seconds = (performance.now() - note.started) / 1000;
    const status = note.status ?? answer.status;
    // A request refused before routing (authentication) still names its route when the path
    // is one of ours; others share one label, so probes of random URLs cannot grow the metrics.
    const routeLabel = answer.route || (routeOf(pathOf(request.url))?.path ?? "unmatched");
    metrics.requests.inc({ route: routeLabel, method: request.method, status: String(status) });
    metrics.requestDuration.observe({ route: routeLabel, method: request.method }, seconds);
    if (note.error === "rate_limited" || note.error === "quota_exceeded")
      metrics.limitRejections.inc({ reason: note.error });
    if (note.billable && note.plan) metrics.billedUnits.inc({ plan: note.plan });
    if (note.vat) metrics.vatAnswers.inc({ result: vatOutcome(note.vat) });
    log.info("request", {
      request_id: answer.requestId,
      method: request.method,
      route: routeLabel,
      status,
      duration_ms: Math.round(seconds * 10_000) / 10,
      key_id: note.keyId,
      plan: note.plan,
      billable: note.billable,
      error: note.error,
      vat: note.vat && {
        country: note.vat.country_code,
        outcome: vatOutcome(note.vat),
        source: note.vat.source,
        valid: note.vat.valid,
        error: note.vat.error?.code,
        warning: note.vat.warning?.code,
      },
      iban: note.iban && {
        iban: note.iban.iban === null ? undefined : maskIban(note.iban.iban),
        country: note.iban.country_code,
        outcome: ibanOutcome(note.iban),
        source: note.iban.source,
        valid: note.iban.valid,
        error: note.iban.error?.code,
      },
      upstream: note.upstream,
      idempotency: note.idempotency,
    });
  };
  const plugin = new Elysia({ name: "request-logging" })
    .onRequest(({ request }) => {
      notes.set(request, { started: performance.now() });
    })
    .mapResponse({ as: "global" }, ({ request, set, route, responseValue }) => {
      const status =
        responseValue instanceof Response
          ? responseValue.status
          : typeof set.status === "number"
            ? set.status
            : 200;
      answered(request, { status, requestId: set.headers["x-request-id"], route });
    });
  return { plugin, answered };
}

export type RequestLog = ReturnType<typeof requestLogging>;
