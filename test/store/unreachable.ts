import type { TCPSocketListener } from "bun";
import { freePort } from "../support/ports.ts";

/** A local port nothing listens on: connecting to it is refused at once. */
export const closedPort = freePort;

/**
 * A server that accepts connections and never answers: what a stuck or half-open peer
 * looks like to a client.
 */
export function startSilentServer(): TCPSocketListener<undefined> {
  return Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
}
