import type { Clock } from "../kernel/clock.ts";
import { checkIncrement, checkTtlSeconds } from "./arguments.ts";
import { StoreError } from "./errors.ts";
import type { KeyValueStore } from "./kv.ts";

export type MemoryStoreOptions = {
  /** Upper bound on entries held; the least recently used entry goes first. */
  maxEntries: number;
  /** Decides expiry, so tests can move time instead of waiting. */
  clock: Clock;
};

type Entry = { value: string; expiresAt: number };

/** The integers Redis' INCRBY accepts as a stored value: no sign but "-", no leading zeros. */
const REDIS_INTEGER = /^(0|-?[1-9][0-9]*)$/;

/**
 * An in-process store for a single instance: the embedded default when no Redis is
 * configured. Bounded by entry count with least-recently-used eviction; an expired entry is
 * never returned. Behaves as the Redis-backed stores do, including their argument checks and
 * their refusal to increment a value that is not an integer.
 */
export function createMemoryStore({ maxEntries, clock }: MemoryStoreOptions): KeyValueStore {
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
  }
  // A Map iterates in insertion order; re-inserting on every use keeps the least recently
  // used entry first, which is what eviction takes.
  const entries = new Map<string, Entry>();
  let closed = false;

  const ensureOpen = () => {
    if (closed) throw new StoreError("closed", "the memory store is closed");
  };

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    entries.delete(key);
    if (entry.expiresAt <= clock.now()) return undefined;
    entries.set(key, entry);
    return entry;
  };

  const write = (key: string, entry: Entry) => {
    entries.delete(key);
    entries.set(key, entry);
    for (const oldest of entries.keys()) {
      if (entries.size <= maxEntries) break;
      entries.delete(oldest);
    }
  };

  return {
    kind: "memory",
    async get(key) {
      ensureOpen();
      return live(key)?.value ?? null;
    },
    async set(key, value, ttlSeconds) {
      ensureOpen();
      checkTtlSeconds(ttlSeconds);
      write(key, { value, expiresAt: clock.now() + ttlSeconds * 1000 });
    },
    async del(key) {
      ensureOpen();
      entries.delete(key);
    },
    async incr(key, by, ttlSeconds) {
      ensureOpen();
      checkTtlSeconds(ttlSeconds);
      checkIncrement(by);
      const current = live(key);
      if (current !== undefined && !REDIS_INTEGER.test(current.value)) {
        throw new RangeError(`the value at ${key} is not an integer`);
      }
      const next = (current === undefined ? 0 : Number(current.value)) + by;
      if (!Number.isSafeInteger(next)) throw new RangeError(`incrementing ${key} would overflow`);
      write(key, { value: String(next), expiresAt: current?.expiresAt ?? clock.now() + ttlSeconds * 1000 });
      return next;
    },
    async ping() {
      ensureOpen();
    },
    async close() {
      closed = true;
      entries.clear();
    },
  };
}
