import type { Account } from "../accounts/authenticator.ts";
import { noteRequest } from "../observability/request-log.ts";
import { quotaHeaders } from "../validation/usage.ts";
import type { ValidationOutcome } from "../validation/validate.ts";
import type { ValidateResponse } from "./schemas.ts";

/**
 * A validation outcome as HTTP: noted for the request log, the quota headers (and the gateway's
 * billing header) set, and the body returned, or the failure thrown when no component could be
 * answered. /validate and /iban/build answer this way.
 */
export function answerValidation(
  outcome: ValidationOutcome,
  context: { account: Account; headers: Record<string, unknown>; request: Request },
): ValidateResponse {
  const { account, headers, request } = context;
  noteRequest(request, {
    billable: outcome.billable,
    ...(outcome.body.vat && { vat: outcome.body.vat }),
    ...(outcome.body.iban && { iban: outcome.body.iban }),
    ...(outcome.upstream && { upstream: outcome.upstream }),
  });
  Object.assign(
    headers,
    quotaHeaders(account, outcome.body.usage.used, Date.parse(outcome.body.usage.reset_at)),
  );
  if (account.kind === "gateway") headers["x-gateway-billing"] = `Validations=${outcome.billable ? 1 : 0}`;
  if (outcome.failure) throw outcome.failure;
  return outcome.body;
}
