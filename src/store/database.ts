import type { Clock } from "../kernel/clock.ts";
import type { Database } from "../kernel/db.ts";
import { checkIncrement, checkTtlSeconds } from "./arguments.ts";
import { StoreError } from "./errors.ts";
import type { KeyValueStore } from "./kv.ts";
import { createMemoryStore } from "./memory.ts";

export type DatabaseStoreOptions = {
  /** Rows kept at most; the sweep deletes those closest to expiry beyond it. */
  maxEntries: number;
  /** In-process copies in front of the table, at most. */
  memoryMaxEntries: number;
  /**
   * How long an in-process copy is served without reading the table again: unbounded when
   * this process is the table's only writer (embedded PGlite), a few seconds when instances
   * share the table (Postgres), so a value another instance wrote is seen that soon.
   */
  memoryMaxAgeSeconds: number;
  /** Drives the expiry of the in-process copies; the table's rows expire by the database's clock. */
  clock: Clock;
  /** How often expired rows are deleted and the bound enforced; defaults to a minute. */
  sweepEveryMs?: number;
};

export type DatabaseStore = KeyValueStore & {
  /** Deletes expired rows, then the rows closest to expiry beyond `maxEntries`. */
  sweep(): Promise<void>;
};

const GET_SQL = `
  SELECT value, floor(extract(epoch FROM expires_at - now()))::int AS ttl_seconds
  FROM cache_entries WHERE key = $1 AND expires_at > now()`;

const SET_SQL = `
  INSERT INTO cache_entries (key, value, expires_at) VALUES ($1, $2, now() + $3 * interval '1 second')
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`;

// A live counter keeps its expiry; an expired row counts as missing. The WHERE refuses a value
// that is not an integer as Redis writes them (or would leave the safe range) by updating
// nothing, so no row comes back and the value is left alone.
const INCR_SQL = `
  INSERT INTO cache_entries AS c (key, value, expires_at)
  VALUES ($1, $2::bigint::text, now() + $3 * interval '1 second')
  ON CONFLICT (key) DO UPDATE SET
    value = CASE WHEN c.expires_at <= now() THEN EXCLUDED.value ELSE (c.value::numeric + $2)::text END,
    expires_at = CASE WHEN c.expires_at <= now() THEN EXCLUDED.expires_at ELSE c.expires_at END
  WHERE c.expires_at <= now()
    OR CASE WHEN c.value ~ '^(0|-?[1-9][0-9]{0,15})$'
      THEN abs(c.value::numeric + $2) <= 9007199254740991 ELSE false END
  RETURNING value`;

const SWEEP_EXPIRED_SQL = "DELETE FROM cache_entries WHERE expires_at <= now()";

const SWEEP_OVERFLOW_SQL = `
  DELETE FROM cache_entries WHERE key IN (
    SELECT key FROM cache_entries ORDER BY expires_at
    LIMIT GREATEST(0, (SELECT count(*) FROM cache_entries) - $1))`;

/**
 * The shared store when no Redis is configured: one table in the database (embedded PGlite or
 * Postgres), so the VAT cache and its last-known-good copies survive restarts and are shared
 * by the instances of one Postgres. Reads go through bounded in-process copies first, so a hot
 * entry costs no statement; writes go to the table, then the copy. Expired rows are deleted in
 * the background, and the table is held to `maxEntries` rows.
 */
export function createDatabaseStore(database: Database, options: DatabaseStoreOptions): DatabaseStore {
  const memory = createMemoryStore({ maxEntries: options.memoryMaxEntries, clock: options.clock });
  let closed = false;
  const ensureOpen = () => {
    if (closed) throw new StoreError("closed", "the database store is closed");
  };
  const remember = (key: string, value: string, ttlSeconds: number) => {
    const seconds = Math.min(ttlSeconds, options.memoryMaxAgeSeconds);
    return seconds >= 1 ? memory.set(key, value, seconds) : memory.del(key);
  };

  const store: DatabaseStore = {
    kind: "database",
    async get(key) {
      ensureOpen();
      const near = await memory.get(key);
      if (near !== null) return near;
      const [row] = await database.prepared<{ value: string; ttl_seconds: number }>(GET_SQL, [key]);
      if (!row) return null;
      await remember(key, row.value, row.ttl_seconds);
      return row.value;
    },
    async set(key, value, ttlSeconds) {
      ensureOpen();
      checkTtlSeconds(ttlSeconds);
      await database.prepared(SET_SQL, [key, value, ttlSeconds]);
      await remember(key, value, ttlSeconds);
    },
    async del(key) {
      ensureOpen();
      await database.prepared("DELETE FROM cache_entries WHERE key = $1", [key]);
      await memory.del(key);
    },
    async incr(key, by, ttlSeconds) {
      ensureOpen();
      checkTtlSeconds(ttlSeconds);
      checkIncrement(by);
      // Counters are shared: never served from the in-process copy.
      await memory.del(key);
      const [row] = await database.prepared<{ value: string }>(INCR_SQL, [key, by, ttlSeconds]);
      if (!row) throw new RangeError(`the value at ${key} is not an integer, or adding ${by} would overflow`);
      return Number(row.value);
    },
    async ping() {
      ensureOpen();
      await database.prepared("SELECT 1", []);
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await memory.close();
    },
    async sweep() {
      ensureOpen();
      await database.prepared(SWEEP_EXPIRED_SQL, []);
      await database.prepared(SWEEP_OVERFLOW_SQL, [options.maxEntries]);
    },
  };
  // A failed sweep is retried by the next one.
  const timer = setInterval(() => store.sweep().catch(() => {}), options.sweepEveryMs ?? 60_000);
  timer.unref();
  return store;
}
