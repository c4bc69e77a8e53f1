/**
 * POST /iban/build: a domestic account number in, its IBAN out. The IBAN is built by the pure core
 * (`build.ts`), then validated and billed exactly as /validate validates and bills an IBAN; a refusal
 * is a 400 and bills nothing.
 */
import { Elysia } from "elysia";
import type { Config } from "../../config.ts";
import { readJsonObject, requireStrings, stringFieldsOf } from "../../http/body.ts";
import {
  AFTER_AUTHENTICATION,
  BODY_TOO_LARGE,
  errorExample,
  errorResponses,
  HEADERS,
  jsonExamples,
  jsonRequestBody,
  KEYED_ROUTE_RESPONSES,
} from "../../http/docs.ts";
import { IBAN_BUILD_REQUESTS, IBAN_BUILD_RESPONSES } from "../../http/examples.ts";
import { models } from "../../http/models.ts";
import { requestIds } from "../../http/request-id.ts";
import { answerValidation } from "../../http/validation-answer.ts";
import type { Idempotency } from "../../idempotency/plugin.ts";
import { ApiError } from "../../kernel/errors.ts";
import { type ValidationDeps, validate } from "../../validation/validate.ts";
import type { IbanResult } from "../schema.ts";
import type { IbanBuilder } from "./build.ts";
import { IbanBuildRequestSchema } from "./schema.ts";

export type IbanBuildRouteDeps = ValidationDeps & {
  builder: IbanBuilder;
  config: Pick<Config, "MAX_BODY_BYTES">;
};

const STRING_FIELDS = stringFieldsOf(IbanBuildRequestSchema);

/** The body: a JSON object within the size bound, its parts strings. */
async function parseBuildBody(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  const body = await readJsonObject(
    request,
    maxBytes,
    "a JSON object with `country_code` and `account_number` strings",
  );
  requireStrings(body, STRING_FIELDS);
  return body;
}

/** `keyed`: authentication and Idempotency-Key, which the route takes as the other POSTs do. */
export function ibanBuildRoute(deps: IbanBuildRouteDeps, keyed: Idempotency) {
  return new Elysia({ name: "iban-build" })
    .model(models)
    .use(requestIds())
    .use(keyed)
    .post(
      "/iban/build",
      async ({ body, caller, set, requestId, request }) => {
        const built = deps.builder.build(body);
        if (!built.ok) throw new ApiError(built.code, built.message);
        const outcome = await validate(deps, caller.account, { iban: built.iban.iban as string }, requestId);
        const answer = answerValidation(outcome, { account: caller.account, headers: set.headers, request });
        // A valid IBAN is always answered: the answer has it.
        return { ...answer, iban: answer.iban as IbanResult };
      },
      {
        idempotent: true,
        parse: ({ request }) => parseBuildBody(request, deps.config.MAX_BODY_BYTES),
        body: "IbanBuildRequest",
        response: { 200: "IbanBuildResponse", ...errorResponses(400, 401, 403, 413, 429, 503) },
        detail: {
          summary: "Build an IBAN from a domestic account number",
          tags: ["Validation"],
          description:
            "The BBAN is made by the country's public conversion rules (for DE the Bundesbank's IBAN rules per bank; IT and SM get their CIN computed), the check digits are computed, and the IBAN is validated and billed as /validate validates and bills one: one unit. An account number whose national check fails, a bank code the country's rule needs but the registry lacks, or malformed parts are refused (400, not billed).",
          security: [{ ApiKey: [] }],
          requestBody: jsonRequestBody("IbanBuildRequest", IBAN_BUILD_REQUESTS),
          responses: {
            200: {
              description: "The IBAN built, validated as /validate validates one",
              headers: { ...HEADERS.rateLimit, ...HEADERS.quota, ...HEADERS.gatewayBilling },
              ...jsonExamples(IBAN_BUILD_RESPONSES),
            },
            400: {
              description:
                "No IBAN can be built: `invalid_request` (a part is missing), `invalid_format` (a malformed part, a bank the registry lacks where the rule needs it, an account failing its national check), `invalid_country` (a country whose conversion rules are not public; the message names those supported). Not billed",
              headers: AFTER_AUTHENTICATION,
              ...errorExample(
                "invalid_format",
                "the account number fails its national check: the control digits (DC) do not match the bank, branch and account number",
              ),
            },
            401: KEYED_ROUTE_RESPONSES[401],
            403: KEYED_ROUTE_RESPONSES[403],
            413: BODY_TOO_LARGE,
            429: {
              description: "`rate_limited` (per-minute limit) or `quota_exceeded` (monthly quota used up)",
              headers: { ...HEADERS.retryAfter, ...AFTER_AUTHENTICATION },
              ...errorExample(
                "quota_exceeded",
                "the monthly quota is used up and this request needs a fresh, billable check; answers the cache holds as fresh are still served",
              ),
            },
            503: {
              description: "`service_unavailable`: usage cannot be recorded right now",
              headers: { ...HEADERS.retryAfter, ...AFTER_AUTHENTICATION },
              ...errorExample("service_unavailable", "usage cannot be recorded right now; try again shortly"),
            },
          },
        },
      },
    );
}
