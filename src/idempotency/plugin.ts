import { Elysia } from "elysia";
import type { authentication, Caller } from "../http/auth.ts";
import { pathOf } from "../http/path.ts";
import { ApiError, ErrorResponseSchema } from "../kernel/errors.ts";
import { describeFailure } from "../kernel/failure.ts";
import type { Logger } from "../kernel/log.ts";
import { noteRequest } from "../observability/request-log.ts";
import {
  decide,
  fingerprintOf,
  IDEMPOTENCY_KEY_PATTERN,
  idempotencyKeyOf,
  isKept,
  keptHeaders,
  refusal,
  type StoredAnswer,
} from "./decide.ts";
import type { IdempotencyStore, Scope } from "./store.ts";

/** A request that holds its key while it runs. */
type Run = { scope: Scope; leaseToken: string; renewal: ReturnType<typeof setInterval> };

/** How many times a claim is retried when other requests under the key keep changing it. */
const CLAIM_ATTEMPTS = 3;
/** A lease is renewed this many times per lease, so one late renewal does not lose it. */
const RENEWALS_PER_LEASE = 3;
/** Renewal stops after this long: a request that never ends must not hold its key forever. */
const LONGEST_RUN_MS = 10 * 60 * 1000;

export const IDEMPOTENCY_PARAMETER = "Idempotency-Key";

/** The headers of the request that asks now, which a replay carries rather than the first answer's. */
const OWN_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-gateway-billing"] as const;

/** The header of a replayed answer, as documented on the answers a route may replay. */
export const REPLAYED_HEADER_DOC = {
  "Idempotent-Replayed": {
    description:
      "`true` when this is the kept answer of an earlier request with the same `Idempotency-Key` (nothing was done or billed again); absent otherwise",
    schema: { type: "string" as const, enum: ["true"] },
  },
};

/**
 * Whether an answer with `status` of a route taking the header may be a replay: those the
 * route's handler gives. A missing key (401) and a body over the bound (413) are refused before
 * the key is looked at, and 409 and 422 are the key's own refusals.
 */
export const mayBeReplayed = (status: number) => isKept(status) && ![401, 409, 413, 422].includes(status);

/** What the OpenAPI document says of every route that takes the header. */
const DOCUMENTATION = {
  parameters: [
    {
      name: IDEMPOTENCY_PARAMETER,
      in: "header" as const,
      required: false,
      description:
        "Makes the request safe to repeat: a repeat with the same key and the same body within IDEMPOTENCY_TTL_HOURS (24 h) gets the first answer again — same status, body (its `request_id` included) and headers, with `Idempotent-Replayed: true` — and bills nothing. Scoped to your API key. A different request under a used key is 422 `idempotency_key_reused`; a repeat while the first still runs is 409 `idempotency_key_in_progress`. Answers that say try again (429, 503) are not kept: a repeat runs anew. Use a new key (a UUID, or your own id of the operation) for each new request.",
      schema: { type: "string" as const, minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
      examples: {
        uuid: { value: "2f1c7d3e-8a4b-4f6e-9c2d-1b5a7e9f0c3d" },
        invoice: { summary: "your own id of the operation", value: "invoice-2026-0042-check" },
      },
    },
  ],
  responses: {
    409: {
      description:
        "`idempotency_key_in_progress`: a request with this `Idempotency-Key` is still running; retry after `Retry-After` (1 s) to get its answer",
      headers: { "Retry-After": { description: "1", schema: { type: "integer" as const } } },
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/ErrorResponse" },
          example: {
            error: {
              code: "idempotency_key_in_progress",
              message:
                "a request with this Idempotency-Key is still running; retry shortly to get its answer",
            },
          },
        },
      },
    },
    422: {
      description:
        "`idempotency_key_reused`: this `Idempotency-Key` was used with a different request (another body or route); nothing was done",
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/ErrorResponse" },
          example: {
            error: {
              code: "idempotency_key_reused",
              message:
                "this Idempotency-Key was used with a different request; use a new key for a new request",
            },
          },
        },
      },
    },
  },
};

/** The first answer again, with the asking request's own per-minute and billing headers. */
function replay(answer: StoredAnswer, current: Record<string, unknown>): Response {
  const headers: Record<string, string> = {};
  for (const name of OWN_HEADERS) {
    const value = current[name];
    if (value !== undefined && value !== null) headers[name] = String(value);
  }
  Object.assign(headers, answer.headers, { "idempotent-replayed": "true" });
  return new Response(answer.body, { status: answer.status, headers });
}

/** The answer a route gave, as it is kept: a Response (an error, rendered) or the route's value. */
async function answerOf(value: unknown, set: { status?: unknown; headers: Record<string, unknown> }) {
  if (value instanceof Response) {
    return {
      status: value.status,
      headers: keptHeaders({ ...set.headers, ...Object.fromEntries(value.headers) }),
      body: await value.clone().text(),
    };
  }
  return {
    status: typeof set.status === "number" ? set.status : 200,
    // What Elysia sends with an object.
    headers: keptHeaders({ ...set.headers, "content-type": "application/json;charset=utf-8" }),
    body: JSON.stringify(value),
  };
}

/**
 * `Idempotency-Key` for the routes that opt in with `{ idempotent: true }` (which also
 * authenticates, as `{ caller: true }` does). With the header, a request's answer is kept under
 * its key and API key: the first runs, a repeat gets the kept answer, and the decisions are
 * made in `decide.ts`. Without it, nothing changes.
 */
export function idempotency(
  deps: { store: IdempotencyStore; log: Logger; onStoreError: (operation: string) => void },
  auth: ReturnType<typeof authentication>,
) {
  const { store, log } = deps;
  const runs = new WeakMap<Request, Run>();

  const unavailable = (operation: string, error: unknown) => {
    deps.onStoreError(operation);
    log.warn("idempotency_store_failed", { operation, ...describeFailure(error) });
    return new ApiError(
      "service_unavailable",
      "idempotency keys cannot be checked right now; try again shortly",
      {
        retryAfter: 1,
      },
    );
  };

  const hold = (request: Request, scope: Scope, leaseToken: string) => {
    const started = Date.now();
    const renewal = setInterval(() => {
      if (Date.now() - started > LONGEST_RUN_MS) return clearInterval(renewal);
      store.renew(scope, leaseToken).then(
        (held) => {
          if (!held) clearInterval(renewal);
        },
        (error) => log.warn("idempotency_renewal_failed", describeFailure(error)),
      );
    }, store.leaseMs / RENEWALS_PER_LEASE);
    renewal.unref();
    runs.set(request, { scope, leaseToken, renewal });
    noteRequest(request, { idempotency: "ran" });
  };

  /** Runs the request (returns nothing), replays what is kept, or refuses. */
  const admit = async (
    request: Request,
    keyId: string,
    body: unknown,
    set: { headers: Record<string, unknown> },
  ) => {
    const key = idempotencyKeyOf(request.headers);
    if (key === null) return;
    const scope = { keyId, key };
    const fingerprint = fingerprintOf(request.method, pathOf(request.url), body);
    const leaseToken = crypto.randomUUID();
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const claimed = await store.claim(scope, fingerprint, leaseToken).catch((error: unknown) => {
        throw unavailable("claim", error);
      });
      if (claimed.kind === "raced") continue;
      const decision =
        claimed.kind === "taken" ? { kind: "run" as const } : decide(claimed.kept, fingerprint);
      switch (decision.kind) {
        case "run":
          return hold(request, scope, leaseToken);
        case "take_over": {
          const taken = await store
            .takeOver(scope, fingerprint, leaseToken, decision.leaseToken)
            .catch((error: unknown) => {
              throw unavailable("take_over", error);
            });
          if (taken) return hold(request, scope, leaseToken);
          continue;
        }
        case "replay":
          noteRequest(request, { idempotency: "replayed" });
          return replay(decision.answer, set.headers);
        default:
          throw refusal(decision);
      }
    }
    // Others kept changing what is kept under the key: one of them is running it.
    throw refusal({ kind: "in_progress" });
  };

  /** Keeps the answer of a request that ran, or forgets the key when the answer says try again. */
  const finish = async (
    request: Request,
    value: unknown,
    set: { status?: unknown; headers: Record<string, unknown> },
  ) => {
    const run = runs.get(request);
    if (!run) return;
    runs.delete(request);
    clearInterval(run.renewal);
    try {
      const answer = await answerOf(value, set);
      if (!isKept(answer.status)) return await store.release(run.scope, run.leaseToken);
      if (!(await store.complete(run.scope, run.leaseToken, answer))) {
        log.warn("idempotency_lease_lost", { key_id: run.scope.keyId });
      }
    } catch (error) {
      // The answer is given anyway; the key's lease lapses and a repeat runs anew.
      deps.onStoreError("complete");
      log.error("idempotency_store_failed", { operation: "complete", ...describeFailure(error) });
    }
  };

  return new Elysia({ name: "idempotency" }).use(auth).macro({
    idempotent: {
      caller: true,
      response: { 409: ErrorResponseSchema, 422: ErrorResponseSchema },
      detail: DOCUMENTATION,
      // Declared async: Elysia awaits a hook only when it can tell the hook is.
      beforeHandle: async (context) => {
        // Resolved by `caller: true` above; the macro's own hooks are not typed with it.
        const { request, caller, body, set } = context as typeof context & { caller: Caller };
        return await admit(request, caller.account.keyId, body, set as { headers: Record<string, unknown> });
      },
      mapResponse: async ({ request, responseValue, set }) =>
        await finish(request, responseValue, set as { status?: unknown; headers: Record<string, unknown> }),
    },
  });
}

export type Idempotency = ReturnType<typeof idempotency>;
