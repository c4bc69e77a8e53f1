import { Redis } from "@upstash/redis";
import { checkIncrement, checkTtlSeconds } from "./arguments.ts";
import { StoreError } from "./errors.ts";
import { INCR_WITH_EXPIRY } from "./incr-script.ts";
import type { KeyValueStore } from "./kv.ts";
import { integerReply, stringReply } from "./replies.ts";

export type UpstashStoreOptions = {
  /** The database's REST URL (`UPSTASH_REDIS_REST_URL`). */
  url: string;
  /** The database's REST token (`UPSTASH_REDIS_REST_TOKEN`). */
  token: string;
  /** Upper bound for one call, its retry included. */
  timeoutMs: number;
};

/**
 * A store on an Upstash Redis database over its REST API. Values come back exactly as
 * stored, and no call takes longer than `timeoutMs`.
 */
export function createUpstashStore({ url, token, timeoutMs }: UpstashStoreOptions): KeyValueStore {
  const redis = new Redis({
    url,
    token,
    // By default the client JSON-parses every reply: "012345678" would come back as a number.
    automaticDeserialization: false,
    enableTelemetry: false,
    // The client retries only when no HTTP response arrived at all; one quick retry covers a
    // pooled keep-alive socket the server already dropped, and the deadline below bounds it.
    retry: { retries: 1, backoff: () => 20 },
    // A function, not a signal: the client calls it once per request, so each call gets its
    // own deadline. (Given a plain signal, an aborted request *resolves* with the abort
    // reason as its result.)
    signal: () => AbortSignal.timeout(timeoutMs),
  });
  let closed = false;

  const call = async <T>(command: () => Promise<T>): Promise<T> => {
    if (closed) throw new StoreError("closed", "the Upstash store is closed");
    try {
      return await command();
    } catch (error) {
      // The deadline surfaces as the signal's TimeoutError; report it as every store does.
      if (error instanceof Error && error.name === "TimeoutError") {
        throw new StoreError("timeout", `Upstash call took longer than ${timeoutMs} ms`);
      }
      throw error;
    }
  };

  return {
    kind: "upstash",
    async get(key) {
      return stringReply(await call(() => redis.get<unknown>(key)), "GET");
    },
    async set(key, value, ttlSeconds) {
      checkTtlSeconds(ttlSeconds);
      await call(() => redis.set(key, value, { ex: ttlSeconds }));
    },
    async del(key) {
      await call(() => redis.del(key));
    },
    async incr(key, by, ttlSeconds) {
      checkTtlSeconds(ttlSeconds);
      checkIncrement(by);
      const reply = await call(() => redis.eval(INCR_WITH_EXPIRY, [key], [String(by), String(ttlSeconds)]));
      return integerReply(reply, "EVAL");
    },
    runScript(script, keys, args) {
      return call(() => redis.eval(script, keys, args));
    },
    async ping() {
      await call(() => redis.ping());
    },
    async close() {
      closed = true;
    },
  };
}
