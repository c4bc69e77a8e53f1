import { type Static, type TSchema, t } from "elysia";
import type { Account } from "../accounts/authenticator.ts";
import { ApiError } from "../kernel/errors.ts";
import type { Caller } from "./auth.ts";
import {
  errorExample,
  errorResponses,
  HEADERS,
  jsonExample,
  KEYED_ROUTE_RESPONSES,
  type Tag,
} from "./docs.ts";
import type { models } from "./models.ts";

type ModelName = keyof typeof models;

/**
 * What the routes of work billed after its answer (batches, monitors) share: the account they
 * serve, and the answer to an id the calling key does not own — another key's item is
 * answered exactly as an unknown one — each with its documentation.
 */
export function directWork<Model extends ModelName, Id extends TSchema>(work: {
  /** What one item is called in messages: `batch`. */
  noun: string;
  /** The feature, as refusals name it: `batches`. */
  plural: string;
  tag: Tag;
  /** The model of one item. */
  model: Model;
  idSchema: Id;
  exampleId: string;
}) {
  const refusal = `${work.plural} are for direct API keys; through the marketplace, use /validate`;
  const routeResponses = {
    ...KEYED_ROUTE_RESPONSES,
    403: {
      description: `\`forbidden\`: the key is revoked, or is a marketplace subscriber's (${work.plural} are for direct keys)`,
      ...errorExample("forbidden", refusal),
    },
  };
  const noSuch = {
    description: `\`not_found\`: no ${work.noun} of this key has this id`,
    ...errorExample("not_found", `no ${work.noun} ${work.exampleId}`),
  };
  const idParams = { caller: true as const, params: t.Object({ id: work.idSchema }) };
  return {
    /**
     * The caller's account: a direct key. The marketplace gateway bills each call by the
     * `X-Gateway-Billing` header of its answer, which such work cannot give; its subscribers
     * are refused (403).
     */
    account(caller: Caller): Account {
      if (caller.account.kind !== "direct") throw new ApiError("forbidden", refusal);
      return caller.account;
    },
    notFound: (id: string) => new ApiError("not_found", `no ${work.noun} ${id}`),
    /** What every route of the work may answer besides its own outcomes. */
    routeResponses,
    /** The 404 of a route that names an item by id. */
    noSuch,
    /** The hook of a route that names an item of the caller's by id. */
    idParams,
    /** The hook of a route that answers one item of the caller's, named by id. */
    oneRoute(
      summary: string,
      description: string,
      answer: { description: string; example: Static<(typeof models)[Model]> },
    ) {
      return {
        ...idParams,
        response: { 200: work.model, ...errorResponses(401, 403, 404, 429, 503) },
        detail: {
          summary,
          description,
          tags: [work.tag],
          security: [{ ApiKey: [] }],
          responses: {
            200: {
              description: answer.description,
              headers: HEADERS.rateLimit,
              ...jsonExample(answer.example),
            },
            ...routeResponses,
            404: noSuch,
          },
        },
      };
    },
  };
}
