import { RedisClient, type Server } from "bun";
import { connectOnDemand } from "../../src/store/redis.ts";

/**
 * A local Upstash Redis REST endpoint backed by a real Redis server, speaking the wire
 * protocol @upstash/redis speaks:
 * - `POST /` with a JSON command array → `{"result": …}`, or HTTP 400 `{"error": "ERR …"}`;
 * - `POST /pipeline` and `POST /multi-exec` with an array of command arrays → an array of
 *   `{"result": …}` / `{"error": …}` (multi-exec runs as one MULTI/EXEC transaction);
 * - the path form `GET|POST /set/key/value?EX=10`, a POST body becoming the last argument
 *   before the query parameters;
 * - `Authorization: Bearer <token>` (or `?_token=`), else HTTP 401 `{"error": "Unauthorized"}`;
 * - with `Upstash-Encoding: base64` (which the client sends by default), every string in a
 *   result is base64 encoded, numbers and nulls are not — as Upstash's own local emulator
 *   (serverless-redis-http) does.
 * Replies are shaped as Redis' RESP2 gives them, which is what Upstash returns: RESP3 maps
 * become flat arrays and booleans become 1/0. Known gap: a RESP3 double that happens to be
 * whole (a ZSCORE of 2) comes back as the integer 2 rather than the string "2". Strings are
 * read as UTF-8, so binary values are out of scope.
 */
export type UpstashFake = {
  readonly url: string;
  readonly token: string;
  /**
   * Takes the endpoint down or brings it back. `refused` closes the listening socket, so
   * connections are refused; `unavailable` keeps it open and answers 503.
   */
  setDown(down: boolean, how?: "refused" | "unavailable"): Promise<void>;
  /** Delays every answer by `ms`, authentication failures and 503s included. */
  setLatency(ms: number): void;
  stop(): Promise<void>;
};

export type UpstashFakeOptions = {
  /** The Redis server commands run on; defaults to redis://127.0.0.1:6379. */
  redisUrl?: string;
  /** The bearer token the fake accepts; defaults to a random one. */
  token?: string;
};

type Command = { name: string; args: string[] };
type Outcome = { result: unknown } | { error: string };

/** Commands that would change the state of the connection shared by every request. */
const CONNECTION_COMMANDS = new Set([
  "AUTH",
  "DISCARD",
  "EXEC",
  "HELLO",
  "MONITOR",
  "MULTI",
  "PSUBSCRIBE",
  "PUNSUBSCRIBE",
  "QUIT",
  "RESET",
  "SELECT",
  "SSUBSCRIBE",
  "SUBSCRIBE",
  "UNSUBSCRIBE",
  "UNWATCH",
  "WATCH",
]);

/** Starts the fake on 127.0.0.1 on a free port. */
export function startUpstashFake(options: UpstashFakeOptions = {}): UpstashFake {
  const redisUrl = options.redisUrl ?? "redis://127.0.0.1:6379";
  const token = options.token ?? crypto.randomUUID();
  // Fail fast instead of queueing when Redis is away, so a test sees an error, not a hang.
  const clientOptions = { connectionTimeout: 1000, autoReconnect: false, enableOfflineQueue: false };
  const redis = new RedisClient(redisUrl, clientOptions);
  const connected = connectOnDemand(redis);
  let latencyMs = 0;
  let unavailable = false;

  const handle = async (request: Request): Promise<Response> => {
    if (latencyMs > 0) await Bun.sleep(latencyMs);
    if (unavailable) return json(503, { error: "Service Unavailable" });
    const url = new URL(request.url);
    if (!authorized(request, url, token)) return json(401, { error: "Unauthorized" });
    if (!["GET", "HEAD", "POST", "PUT"].includes(request.method)) {
      return json(405, { error: "Method Not Allowed" });
    }
    const encode = request.headers.get("upstash-encoding")?.toLowerCase() === "base64";
    try {
      await connected();
    } catch (error) {
      return json(500, { error: `the fake's Redis is unreachable: ${String(error)}` });
    }
    try {
      if (url.pathname === "/pipeline" || url.pathname === "/multi-exec") {
        const commands = parseCommandList(await readJson(request));
        const outcomes =
          url.pathname === "/pipeline" ? await pipeline(commands) : await transaction(commands);
        return json(
          200,
          outcomes.map((outcome) => encodeOutcome(outcome, encode)),
        );
      }
      const command =
        url.pathname === "/" ? parseCommand(await readJson(request)) : await commandFromPath(request, url);
      return json(200, encodeOutcome({ result: await redis.send(command.name, command.args) }, encode));
    } catch (error) {
      return json(400, { error: error instanceof Error ? error.message : String(error) });
    }
  };

  const pipeline = async (commands: Command[]): Promise<Outcome[]> => {
    const outcomes: Outcome[] = [];
    for (const command of commands) outcomes.push(await settle(redis.send(command.name, command.args)));
    return outcomes;
  };

  // MULTI/EXEC needs a connection of its own: the shared one interleaves other requests.
  const transaction = async (commands: Command[]): Promise<Outcome[]> => {
    const connection = new RedisClient(redisUrl, clientOptions);
    try {
      await connection.connect();
      await connection.send("MULTI", []);
      // A command refused while queueing makes EXEC fail with EXECABORT, which is reported.
      for (const command of commands) await settle(connection.send(command.name, command.args));
      const replies: unknown = await connection.send("EXEC", []);
      if (!Array.isArray(replies)) throw new Error(`EXEC replied ${String(replies)}`);
      return replies.map(
        (reply): Outcome => (reply instanceof Error ? { error: reply.message } : { result: reply }),
      );
    } finally {
      connection.close();
    }
  };

  let server: Server<undefined> | null = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handle });
  const port = server.port;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    async setDown(down, how = "refused") {
      unavailable = down && how === "unavailable";
      const listening = !(down && how === "refused");
      if (!listening && server !== null) {
        await server.stop(true);
        server = null;
      } else if (listening && server === null) {
        server = Bun.serve({ hostname: "127.0.0.1", port, fetch: handle });
      }
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    async stop() {
      await server?.stop(true);
      server = null;
      redis.close();
    },
  };
}

function authorized(request: Request, url: URL, token: string): boolean {
  const header = request.headers.get("authorization");
  if (header !== null) return header === `Bearer ${token}`;
  return url.searchParams.get("_token") === token;
}

function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

async function readJson(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new Error("ERR failed to parse command: the body is not JSON");
  }
}

function parseCommand(body: unknown): Command {
  if (!Array.isArray(body) || body.length === 0) {
    throw new Error("ERR failed to parse command: expected a non-empty JSON array");
  }
  const parts = body.map((part) => {
    if (typeof part === "string") return part;
    if (typeof part === "number" || typeof part === "boolean") return String(part);
    throw new Error(`ERR failed to parse command: unsupported argument ${JSON.stringify(part)}`);
  });
  const [first = "", ...args] = parts;
  const name = first.toUpperCase();
  if (CONNECTION_COMMANDS.has(name)) throw new Error(`ERR Command is not available: '${first}'`);
  return { name, args };
}

function parseCommandList(body: unknown): Command[] {
  if (!Array.isArray(body) || body.length === 0) {
    throw new Error("ERR failed to parse pipeline request: expected a non-empty array of commands");
  }
  return body.map(parseCommand);
}

async function commandFromPath(request: Request, url: URL): Promise<Command> {
  const parts = url.pathname
    .split("/")
    .filter((part) => part !== "")
    .map(decodeURIComponent);
  if (request.method === "POST" || request.method === "PUT") {
    const body = await request.text();
    if (body !== "") parts.push(body);
  }
  for (const [name, value] of url.searchParams) if (name !== "_token") parts.push(name, value);
  return parseCommand(parts);
}

async function settle(reply: Promise<unknown>): Promise<Outcome> {
  try {
    return { result: await reply };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function encodeOutcome(outcome: Outcome, base64: boolean): Outcome {
  return "error" in outcome ? outcome : { result: toWire(outcome.result, base64) };
}

/** One Bun (RESP3) reply value as Upstash's JSON carries it. */
function toWire(value: unknown, base64: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return base64 ? Buffer.from(value, "utf8").toString("base64") : value;
  if (typeof value === "number") return Number.isInteger(value) ? value : toWire(String(value), base64);
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Error) return toWire(value.message, base64);
  if (Array.isArray(value)) return value.map((element) => toWire(element, base64));
  if (typeof value === "object")
    return Object.entries(value)
      .flat()
      .map((element) => toWire(element, base64));
  throw new Error(`the Upstash fake cannot represent a ${typeof value} reply`);
}
