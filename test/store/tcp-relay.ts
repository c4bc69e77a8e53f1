import type { Socket, TCPSocketListener } from "bun";

export type TcpRelay = {
  readonly port: number;
  /** Closes the listener and every relayed connection, as a server going away does. */
  stop(): void;
  /** Listens again on the same port. */
  start(): void;
  /**
   * Silently drops all further traffic on the connections open now, leaving them open: a
   * half-open connection, as after a NAT or firewall forgot it. New connections work.
   */
  freezeOpenConnections(): void;
};

type Link = { upstream: Socket<undefined> | null; pending: Uint8Array[]; frozen: boolean };

/** A TCP relay on 127.0.0.1 to `target`, which a test can take down and bring back. */
export function startTcpRelay(target: { hostname: string; port: number }): TcpRelay {
  const links = new Set<Link>();
  const listen = (port: number): TCPSocketListener<Link> =>
    Bun.listen<Link>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          const link: Link = { upstream: null, pending: [], frozen: false };
          client.data = link;
          links.add(link);
          void Bun.connect({
            ...target,
            socket: {
              open(upstream) {
                link.upstream = upstream;
                for (const chunk of link.pending) upstream.write(chunk);
              },
              data(_upstream, chunk) {
                if (!link.frozen) client.write(chunk);
              },
              close() {
                client.end();
              },
              error() {
                client.end();
              },
            },
          }).catch(() => client.end());
        },
        data(client, chunk) {
          const link = client.data;
          if (link.frozen) return;
          if (link.upstream) link.upstream.write(chunk);
          else link.pending.push(new Uint8Array(chunk));
        },
        close(client) {
          links.delete(client.data);
          client.data.upstream?.end();
        },
      },
    });
  let listener: TCPSocketListener<Link> | null = listen(0);
  const port = listener.port;
  return {
    port,
    stop() {
      listener?.stop(true);
      listener = null;
    },
    start() {
      listener ??= listen(port);
    },
    freezeOpenConnections() {
      for (const link of links) link.frozen = true;
    },
  };
}
