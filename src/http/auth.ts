import { Elysia } from "elysia";
import type { Account, Authenticator } from "../accounts/authenticator.ts";
import type { RateDecision, RateLimiter } from "../accounts/rate-limit.ts";
import { ApiError } from "../kernel/errors.ts";
import { noteRequest } from "../observability/request-log.ts";
import { pathOf } from "./path.ts";
import { GATEWAY_BILLED_PATHS, needsKey } from "./routes.ts";

export type Caller = { account: Account; rate: RateDecision };

/**
 * Authentication and the per-minute limit, run when the request arrives — before its body
 * is read — so a caller without a valid key learns that first, and every request of a key
 * counts against its limit, malformed ones included. Routes opt in with `{ caller: true }`
 * and receive the resolved `caller`.
 */
export function authentication(deps: { authenticator: Authenticator; rateLimiter: RateLimiter }) {
  const callers = new WeakMap<Request, Caller>();
  return new Elysia({ name: "authentication" })
    .onRequest(async ({ request, set }) => {
      const path = pathOf(request.url);
      // The gateway bills from this header, so every answer to a call of /validate or /iban/build
      // that presents the gateway secret carries it — refusals and wrong methods included; the
      // route raises it to 1 when billable.
      if (GATEWAY_BILLED_PATHS.has(path) && request.headers.has("x-gateway-proxy-secret")) {
        set.headers["x-gateway-billing"] = "Validations=0";
      }
      if (!needsKey(request.method, path)) return;
      const account = await deps.authenticator.authenticate(request.headers);
      noteRequest(request, { keyId: account.keyId, plan: account.plan.id });
      const rate = await deps.rateLimiter.hit(account.keyId, account.ratePerMinute).catch(() => {
        throw new ApiError("service_unavailable", "the rate-limit store is unreachable; try again shortly", {
          retryAfter: 5,
        });
      });
      set.headers["x-ratelimit-limit"] = String(rate.limit);
      set.headers["x-ratelimit-remaining"] = String(rate.remaining);
      if (!rate.allowed) {
        throw new ApiError(
          "rate_limited",
          `more than ${rate.limit} requests in this minute; retry in ${rate.retryAfterSeconds} s`,
          { retryAfter: rate.retryAfterSeconds },
        );
      }
      callers.set(request, { account, rate });
    })
    .macro({
      caller: {
        resolve({ request }) {
          const caller = callers.get(request);
          // The onRequest hook above runs for every route that needs a key; reaching here without
          // a caller means a route opted in without being marked so in the route table.
          if (!caller)
            throw new Error(`route ${request.method} ${pathOf(request.url)} needs a key in ROUTES`);
          return { caller };
        },
      },
    });
}
