import type { Account } from "../accounts/authenticator.ts";
import { ibanIsBillable, isAnswered } from "../accounts/billing.ts";
import type { Meter, MeterAdmission } from "../accounts/meter.ts";
import type { ValidateRequest, ValidateResponse } from "../http/schemas.ts";
import type { IbanEngine } from "../iban/engine.ts";
import type { IbanResult } from "../iban/schema.ts";
import type { Clock } from "../kernel/clock.ts";
import { ApiError } from "../kernel/errors.ts";
import { describeFailure } from "../kernel/failure.ts";
import type { Logger } from "../kernel/log.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { VatResult } from "../vat/schema.ts";
import type { VatResolution, VatService } from "../vat/service.ts";
import { recordOf, type ValidationRecord, type ValidationRecords } from "./records.ts";
import { quotaHeaders, usageBlock } from "./usage.ts";

export type ValidationDeps = {
  iban: IbanEngine;
  vat: VatService;
  meter: Meter;
  records: ValidationRecords;
  clock: Clock;
  metrics: Metrics;
  log: Logger;
};

/**
 * Stores the record of a fresh VAT answer. The answer is given whether or not it could be
 * stored: the verdict is true either way, and the failure is logged and counted.
 */
async function keepRecord(deps: ValidationDeps, record: ValidationRecord): Promise<void> {
  try {
    await deps.records.add(record);
  } catch (error) {
    deps.metrics.storeErrors.inc({ store: "database", operation: "record" });
    deps.log.error("validation_record_failed", { key_id: record.key_id, ...describeFailure(error) });
  }
}

/** The answer to one validate request, before it becomes HTTP. */
export type ValidationOutcome = {
  body: ValidateResponse;
  /** Set when no component could be answered: the request fails with this error instead. */
  failure: ApiError | null;
  billable: boolean;
  /** What the VAT lookup did upstream, when it went there. */
  upstream: VatResolution["upstream"] | null;
};

function meterUnavailable(deps: ValidationDeps, operation: string, error: unknown): ApiError {
  deps.metrics.storeErrors.inc({ store: "database", operation });
  deps.log.warn("meter_unavailable", { operation, ...describeFailure(error) });
  return new ApiError("service_unavailable", "usage cannot be recorded right now; try again shortly", {
    retryAfter: 5,
  });
}

/**
 * Validates the components of one request and meters it: at most one unit, billed only
 * when a component produced a fresh definitive result, durably recorded before the answer
 * is returned. Fresh VAT work is preceded by a reservation, so a used-up quota is refused
 * before VIES is asked, and the reservation is released when nothing billable came of it.
 */
export async function validate(
  deps: ValidationDeps,
  account: Account,
  request: ValidateRequest,
  requestId: string,
): Promise<ValidationOutcome> {
  if (request.match !== undefined && request.vat === undefined) {
    throw new ApiError(
      "invalid_request",
      "`match` is compared with the record of a VAT number: send `vat` with it",
    );
  }
  if (request.vat === undefined && request.iban === undefined) {
    throw new ApiError("invalid_request", "send `vat`, `iban`, or both, as strings");
  }
  const match = request.match ?? null;
  const iban: IbanResult | undefined =
    request.iban === undefined ? undefined : deps.iban.validate(request.iban);
  const vatPlan = request.vat === undefined ? undefined : await deps.vat.plan(request.vat, match);
  const ibanBillable = iban !== undefined && ibanIsBillable(iban);
  const needsUpstream = vatPlan?.kind === "upstream";

  let admission: MeterAdmission;
  try {
    admission = await deps.meter.admit({
      keyId: account.keyId,
      quota: account.monthlyQuota,
      charge: ibanBillable && !needsUpstream,
      reserve: needsUpstream,
    });
  } catch (error) {
    throw meterUnavailable(deps, "admit", error);
  }
  if (!admission.ok) {
    // A copy is never billed, so a used-up quota does not stand in its way: a fresh one the
    // request went past only for the member state's match codes, or a stale one when the
    // outage is known without asking the authority, is the answer.
    const stale =
      vatPlan?.kind === "upstream" && !ibanBillable
        ? (vatPlan.freshCopy ?? deps.vat.staleDuringKnownOutage(vatPlan))
        : null;
    if (stale === null) {
      throw new ApiError(
        "quota_exceeded",
        "the monthly quota is used up and this request needs a fresh, billable check; answers the cache holds as fresh are still served",
        {
          retryAfter: Math.max(1, Math.ceil((admission.resetMs - deps.clock.now()) / 1000)),
          headers: quotaHeaders(account, admission.used, admission.resetMs),
        },
      );
    }
    return {
      body: {
        request_id: requestId,
        vat: stale,
        ...(iban && { iban }),
        billable: false,
        usage: usageBlock(account, admission.used, admission.resetMs),
      },
      failure: null,
      billable: false,
      upstream: null,
    };
  }

  let vat: VatResult | undefined;
  let vatRetryAfter: number | undefined;
  let upstream: VatResolution["upstream"] | null = null;
  let billable = admission.charged;
  let used = admission.used;
  if (vatPlan?.kind === "answered") vat = vatPlan.result;
  if (vatPlan?.kind === "upstream" && admission.reservation) {
    const reservation = admission.reservation;
    const resolved = await deps.vat.resolve(vatPlan).catch(async (error: unknown) => {
      // resolve() is not meant to throw; if it does, the unit is given back at once.
      await deps.meter.settle(reservation, false).catch(() => {});
      throw error;
    });
    vat = resolved.result;
    vatRetryAfter = resolved.retryAfterSeconds ?? undefined;
    upstream = resolved.upstream;
    const record = resolved.fresh ? recordOf(requestId, account.keyId, resolved.result, match) : null;
    const recorded = record ? keepRecord(deps, record) : Promise.resolve();
    try {
      const settled = await deps.meter.settle(reservation, resolved.fresh || ibanBillable);
      billable = settled.billed;
      used = settled.used;
      await recorded;
    } catch (error) {
      // The answer is there and is given: an unsettled reservation lapses unbilled at the end
      // of its lease, so this request is not billed, and says so.
      deps.metrics.storeErrors.inc({ store: "database", operation: "settle" });
      deps.log.error("settlement_failed", { key_id: account.keyId, ...describeFailure(error) });
      billable = false;
    }
  }

  const body: ValidateResponse = {
    request_id: requestId,
    ...(vat && { vat }),
    ...(iban && { iban }),
    billable,
    usage: usageBlock(account, used, admission.resetMs),
  };
  const components = [vat, iban].filter((component) => component !== undefined);
  const answered = components.some(isAnswered);
  const firstError = components.find((component) => component.error !== null)?.error ?? null;
  const failure =
    answered || firstError === null
      ? null
      : new ApiError(firstError.code, firstError.message, {
          retryAfter: vat?.error === firstError ? vatRetryAfter : undefined,
        });
  return { body, failure, billable, upstream };
}
