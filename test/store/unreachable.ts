import type { TCPSocketListener } from "bun";

/** A local port nothing listens on: connecting to it is refused at once. */
export function closedPort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

/**
 * A server that accepts connections and never answers: what a stuck or half-open peer
 * looks like to a client.
 */
export function startSilentServer(): TCPSocketListener<undefined> {
  return Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
}
