import { Elysia } from "elysia";

/** The request ids this API keeps or gives out: a proxy's, a UUID, a batch item's `{batch_id}.{index}`. */
export const REQUEST_ID_PATTERN = "^[A-Za-z0-9._:-]{1,64}$";
const INBOUND_ID = new RegExp(REQUEST_ID_PATTERN);

/**
 * Gives every request an id, sent back in `X-Request-Id` on every response (errors
 * included) and available to handlers as `requestId`. A well-formed id sent by a proxy in
 * front of the service is kept, so logs on both sides line up.
 */
export function requestIds() {
  return new Elysia({ name: "request-ids" })
    .onRequest(({ request, set }) => {
      const inbound = request.headers.get("x-request-id");
      set.headers["x-request-id"] =
        inbound !== null && INBOUND_ID.test(inbound) ? inbound : crypto.randomUUID();
    })
    .derive({ as: "global" }, ({ set }) => ({ requestId: String(set.headers["x-request-id"]) }));
}
