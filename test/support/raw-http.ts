/**
 * A raw HTTP/1.1 client over `node:net`, for requests `fetch` refuses to send: malformed
 * request lines, absurd Content-Length, broken chunking, invalid header bytes.
 */
import { connect } from "node:net";

export type RawResponse = {
  status: number;
  headers: Record<string, string>;
  body: string;
};

export type RawExchange = {
  /** Every complete response read, in order (pipelined requests get several). */
  responses: RawResponse[];
  /** Bytes after the last complete response that do not form one. */
  leftover: string;
  /** Whether the server closed the connection within the wait. */
  closed: boolean;
};

/** Splits what a server sent into responses (Content-Length and chunked bodies). */
export function parseResponses(data: Buffer): { responses: RawResponse[]; leftover: string } {
  const responses: RawResponse[] = [];
  let rest = data;
  for (;;) {
    const headEnd = rest.indexOf("\r\n\r\n");
    if (headEnd < 0) break;
    const head = rest.subarray(0, headEnd).toString("latin1");
    const [statusLine = "", ...headerLines] = head.split("\r\n");
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!match) break;
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let body: Buffer;
    let after = rest.subarray(headEnd + 4);
    if (headers["transfer-encoding"]?.toLowerCase() === "chunked") {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = after.indexOf("\r\n");
        if (lineEnd < 0) return { responses, leftover: rest.toString("latin1") };
        const size = Number.parseInt(after.subarray(0, lineEnd).toString("latin1"), 16);
        if (Number.isNaN(size) || after.length < lineEnd + 2 + size + 2) {
          return { responses, leftover: rest.toString("latin1") };
        }
        chunks.push(after.subarray(lineEnd + 2, lineEnd + 2 + size));
        after = after.subarray(lineEnd + 2 + size + 2);
        if (size === 0) break;
      }
      body = Buffer.concat(chunks);
    } else {
      const length = Number(headers["content-length"] ?? 0);
      if (after.length < length) break;
      body = after.subarray(0, length);
      after = after.subarray(length);
    }
    responses.push({ status: Number(match[1]), headers, body: body.toString("utf8") });
    rest = after;
  }
  return { responses, leftover: rest.toString("latin1") };
}

/**
 * Connects to 127.0.0.1:`port`, writes `request`, and reads until the server closes the
 * connection, until nothing more arrived for `quietMs` after a complete response (a
 * kept-alive connection), or until `waitMs` pass; then the connection is dropped. The
 * client never half-closes: some servers take that as the client going away.
 */
export function rawExchange(
  port: number,
  request: Uint8Array,
  options: { waitMs?: number; quietMs?: number } = {},
): Promise<RawExchange> {
  const { waitMs = 2000, quietMs = 300 } = options;
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    const socket = connect({ host: "127.0.0.1", port });
    let done = false;
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(quiet);
      socket.destroy();
      resolve({ ...parseResponses(Buffer.concat(received)), closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      clearTimeout(quiet);
      if (parseResponses(Buffer.concat(received)).responses.length > 0)
        quiet = setTimeout(() => finish(false), quietMs);
    });
    socket.on("close", () => finish(true));
    // A reset after the server answered and closed is an ending like any other.
    socket.on("error", () => finish(true));
    socket.on("connect", () => socket.write(request));
  });
}
