/**
 * The HTTP side the fakes share, on `node:http` rather than `Bun.serve` because resets, garbage
 * bytes and truncated bodies need the raw socket: reading bodies, sending replies with a
 * Content-Length, breaking connections, and a server whose hanging calls can be ended.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Reply = { status: number; headers: Record<string, string>; body: string };

export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export function send(response: ServerResponse, reply: Reply | null): void {
  if (reply === null || response.destroyed) return;
  // Set explicitly: node:http would otherwise chunk the body, and the real services send a Content-Length.
  response.writeHead(reply.status, {
    ...reply.headers,
    "Content-Length": String(Buffer.byteLength(reply.body)),
  });
  response.end(reply.body);
}

export function html(status: number, page: string): Reply {
  return { status, headers: { "Content-Type": "text/html; charset=UTF-8" }, body: page };
}

/** Closes the connection with a TCP RST, which is what a dropped connection looks like to a client. */
export function resetSocket(socket: Socket): void {
  if (typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

/** Answers with bytes that are not HTTP, then closes. */
export function sendGarbage(socket: Socket): void {
  socket.end("\u0000\u0017 <<not HTTP at all>>\r\n\r\n");
}

/** Announces `body` with its length, sends half of it, and closes the connection. */
export function sendTruncated(socket: Socket, contentType: string, body: string): void {
  socket.write(
    `HTTP/1.1 200 OK\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n` +
      body.slice(0, body.length / 2),
  );
  socket.destroy();
}

export type RawServer = {
  baseUrl: string;
  /** Keeps a connection open unanswered until `endParked()` or `stop()`. */
  park(socket: Socket): void;
  endParked(): void;
  stop(): Promise<void>;
};

/**
 * Listens on 127.0.0.1 on a free port. `handle` answers with a reply, or null when it dealt
 * with the connection itself; a handler that throws resets the connection.
 */
export async function startRawServer(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<Reply | null>,
): Promise<RawServer> {
  const parked = new Set<Socket>();
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    handle(request, response).then(
      (reply) => send(response, reply),
      () => resetSocket(request.socket),
    );
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const endParked = () => {
    for (const socket of parked) socket.destroy();
    parked.clear();
  };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    park: (socket) => parked.add(socket),
    endParked,
    async stop() {
      endParked();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a test controls of a fake's endpoint besides its records. */
export type EndpointControls<B, C> = {
  /** Every call the endpoint was sent since the last reset, in order. */
  calls: { total: number; log: C[] };
  /** Answers every call so, or (with `times`) the next `times` calls before the previous behaviour. */
  setBehaviour(behaviour: B, options?: { times?: number }): void;
  setLatency(ms: number): void;
};

/**
 * The state a fake of one endpoint keeps besides its records, and the order it answers in:
 * the call counted first, a hanging behaviour played at once, anything else after the latency.
 * Only how a behaviour is played, and what the protocol answers without one, is the fake's own.
 */
export function fakeEndpoint<B extends { kind: string }, C>() {
  let always: B | null = null;
  let upcoming: B[] = [];
  let latency = 0;
  const calls: EndpointControls<B, C>["calls"] = { total: 0, log: [] };
  const controls: EndpointControls<B, C> = {
    calls,
    setBehaviour(behaviour, options = {}) {
      if (options.times === undefined) always = behaviour;
      else for (let i = 0; i < options.times; i += 1) upcoming.push(behaviour);
    },
    setLatency(ms) {
      latency = ms;
    },
  };
  return {
    controls,
    async answer(
      call: C,
      play: (behaviour: B) => Reply | null,
      protocol: () => Reply | Promise<Reply>,
    ): Promise<Reply | null> {
      calls.total += 1;
      calls.log.push(call);
      const behaviour = upcoming.shift() ?? always;
      if (behaviour?.kind === "hang") return play(behaviour);
      if (latency > 0) await Bun.sleep(latency);
      return behaviour ? play(behaviour) : protocol();
    },
    /** Back to no behaviour, no latency and no calls. */
    clear() {
      always = null;
      upcoming = [];
      latency = 0;
      calls.total = 0;
      calls.log = [];
    },
  };
}

const REASONS: Record<number, string> = {
  404: "Not Found",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** A front-end proxy error page, the shape of the 5xx pages seen during VIES outages. */
export function proxyErrorPage(status: number): string {
  const reason = REASONS[status] ?? "Error";
  return `<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">
<html><head>
<title>${status} ${reason}</title>
</head><body>
<h1>${reason}</h1>
<p>The server is temporarily unable to service your request. Please try again later.</p>
</body></html>
`;
}

/** The outage shapes every fake can play, whatever its protocol. */
export type OutageBehaviour =
  /** A front-end proxy's HTML error page. */
  | { kind: "html"; status: 500 | 502 | 503 | 504 }
  /** Read the request, never answer (until the client gives up, `reset()` or `stop()`). */
  | { kind: "hang" }
  /** Close the connection without answering (TCP RST). */
  | { kind: "reset" }
  /** Answer with bytes that are not HTTP, then close. */
  | { kind: "garbage" };

/** Plays an outage: the reply to send, or null when the connection was dealt with here. */
export function performOutage(
  server: RawServer,
  behaviour: OutageBehaviour,
  request: IncomingMessage,
): Reply | null {
  switch (behaviour.kind) {
    case "html":
      return html(behaviour.status, proxyErrorPage(behaviour.status));
    case "hang":
      server.park(request.socket);
      return null;
    case "reset":
      resetSocket(request.socket);
      return null;
    case "garbage":
      sendGarbage(request.socket);
      return null;
  }
}
