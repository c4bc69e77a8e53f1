import { RedisClient } from "bun";
import { Batcher } from "../kernel/batcher.ts";
import { checkIncrement, checkTtlSeconds } from "./arguments.ts";
import { withDeadline } from "./deadline.ts";
import { StoreError } from "./errors.ts";
import { INCR_MANY_WITH_EXPIRY } from "./incr-script.ts";
import type { KeyValueStore } from "./kv.ts";
import { integerReply, stringReply } from "./replies.ts";

/** Increment scripts sent before the first has answered, at most. */
const INCREMENTS_IN_FLIGHT = 4;

export type RedisStoreOptions = {
  /** `redis://`, `rediss://` or `redis+unix://` URL, credentials and database included. */
  url: string;
  /** Upper bound for one call, connecting included. */
  timeoutMs: number;
};

/**
 * A store on a Redis server over Bun's built-in client. A call never waits longer than
 * `timeoutMs`: while the server is unreachable calls fail at once instead of queueing, and
 * the next call after the server is back reconnects.
 */
export function createRedisStore({ url, timeoutMs }: RedisStoreOptions): KeyValueStore {
  // Reconnecting is done here, on demand, rather than by the client: its own reconnect loop
  // gives up for good after `maxRetries`, and its offline queue would hold calls for as long
  // as the outage lasts.
  const client = new RedisClient(url, {
    // Longer than the call deadline, so a server that accepts and never answers fails the
    // call with our timeout (which then closes the connection), never a race between the two.
    connectionTimeout: timeoutMs * 2,
    autoReconnect: false,
    enableOfflineQueue: false,
  });
  const connected = connectOnDemand(client);
  let closed = false;

  const send = (command: string, args: string[]): Promise<unknown> => {
    if (closed) return Promise.reject(new StoreError("closed", "the Redis store is closed"));
    const reply = connected().then(() => client.send(command, args));
    // A call that outlives its deadline most likely sits on a dead connection (a half-open
    // socket is never noticed otherwise): drop it so the next call starts a fresh one.
    return withDeadline(reply, timeoutMs, `Redis ${command}`, () => client.close());
  };

  // Counters are the per-request path (rate limits): the increments of one tick travel as one
  // script call, each caller getting its own reply. Redis runs each script whole, in the order
  // sent, so calls need not wait for each other: a request's increment leaves on the next turn
  // rather than after the call in flight — one round trip less of waiting (bench/README.md).
  const increments = new Batcher<{ key: string; by: number; ttlSeconds: number }, unknown>(
    async (items) => {
      const args = items.flatMap((item) => [String(item.by), String(item.ttlSeconds)]);
      const keys = items.map((item) => item.key);
      const reply = await send("EVAL", [INCR_MANY_WITH_EXPIRY, String(keys.length), ...keys, ...args]);
      if (!Array.isArray(reply) || reply.length !== items.length) {
        throw new StoreError(
          "bad_reply",
          `EVAL replied with ${typeof reply}, expected ${items.length} results`,
        );
      }
      return reply;
    },
    { inFlight: INCREMENTS_IN_FLIGHT },
  );

  return {
    kind: "redis",
    async get(key) {
      return stringReply(await send("GET", [key]), "GET");
    },
    async set(key, value, ttlSeconds) {
      checkTtlSeconds(ttlSeconds);
      await send("SET", [key, value, "EX", String(ttlSeconds)]);
    },
    async del(key) {
      await send("DEL", [key]);
    },
    async incr(key, by, ttlSeconds) {
      checkTtlSeconds(ttlSeconds);
      checkIncrement(by);
      const reply = await increments.submit({ key, by, ttlSeconds });
      if (typeof reply === "string" && reply.startsWith("ERR")) throw new StoreError("bad_reply", reply);
      return integerReply(reply, "EVAL");
    },
    runScript(script, keys, args) {
      return send("EVAL", [script, String(keys.length), ...keys, ...args]);
    },
    async ping() {
      await send("PING", []);
    },
    async close() {
      closed = true;
      client.close();
    },
  };
}

/**
 * For a client made with `autoReconnect: false`: returns a function resolving once the
 * client is connected, starting one connection attempt when it is not and sharing that
 * attempt among concurrent callers.
 */
export function connectOnDemand(client: RedisClient): () => Promise<void> {
  let connecting: Promise<void> | null = null;
  return () => {
    if (client.connected) return Promise.resolve();
    connecting ??= client.connect().finally(() => {
      connecting = null;
    });
    return connecting;
  };
}
