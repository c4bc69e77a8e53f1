import type { Clock } from "../clock.ts";
import type { KeyValueStore } from "./kv.ts";
import { createMemoryStore } from "./memory.ts";
import { createRedisStore } from "./redis.ts";
import { createUpstashStore } from "./upstash.ts";

export type KeyValueStoreConfig = {
  upstashUrl?: string;
  upstashToken?: string;
  redisUrl?: string;
  /** Bound of the in-process store; defaults to DEFAULT_MEMORY_MAX_ENTRIES. */
  memoryMaxEntries?: number;
  /** Upper bound for one call to a networked store. */
  timeoutMs: number;
};

/** Room for the VAT cache and counters of one instance: entries are well under 1 KB each. */
export const DEFAULT_MEMORY_MAX_ENTRIES = 100_000;

/**
 * The store the configuration asks for: Upstash when both its URL and token are set, else
 * Redis when a Redis URL is set, else the in-process store (which `clock` drives). Half an
 * Upstash configuration throws rather than quietly falling back to another store.
 */
export function createKeyValueStore(config: KeyValueStoreConfig, clock: Clock): KeyValueStore {
  const { upstashUrl, upstashToken, redisUrl, timeoutMs } = config;
  if (Boolean(upstashUrl) !== Boolean(upstashToken)) {
    throw new Error("Upstash needs both a REST URL and a token; only one of them is set");
  }
  if (upstashUrl && upstashToken)
    return createUpstashStore({ url: upstashUrl, token: upstashToken, timeoutMs });
  if (redisUrl) return createRedisStore({ url: redisUrl, timeoutMs });
  return createMemoryStore({ maxEntries: config.memoryMaxEntries ?? DEFAULT_MEMORY_MAX_ENTRIES, clock });
}
