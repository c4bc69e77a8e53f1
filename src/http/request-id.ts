import { Elysia } from "elysia";

const INBOUND_ID = /^[A-Za-z0-9._:-]{1,64}$/;

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
