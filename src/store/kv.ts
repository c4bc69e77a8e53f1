/**
 * The shared key-value store behind caches and cross-instance counters: Upstash (REST),
 * plain Redis, a table in the database when no Redis is configured, or an in-process map.
 * Values are strings; callers serialize. Every method may reject when the store is
 * unreachable: callers decide whether that degrades (caches) or fails (nothing does today).
 */
export interface KeyValueStore {
  readonly kind: "memory" | "database" | "redis" | "upstash";
  get(key: string): Promise<string | null>;
  /** Stores `value` under `key`, expiring after `ttlSeconds` (whole seconds, > 0). */
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
  /**
   * Atomically adds `by` to the integer at `key` and returns the new value. A key created by
   * this call expires after `ttlSeconds`; an existing key keeps its expiry.
   */
  incr(key: string, by: number, ttlSeconds: number): Promise<number>;
  /**
   * Runs a Lua script atomically (`EVAL`) on `keys` with `args` and returns its reply: only the
   * Redis-backed stores (Redis, Upstash) have it.
   */
  runScript?(script: string, keys: string[], args: string[]): Promise<unknown>;
  /** Resolves when the store answers; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
