import type { Database } from "../kernel/db.ts";
import { StoreError } from "../store/errors.ts";
import type { KeyValueStore } from "../store/kv.ts";

/** One slot held: kept by renewing it, given back when the work is done. */
export type Lease = {
  /** Extends the lease by `leaseMs` from now; false when it had lapsed (and is not taken again). */
  renew(leaseMs: number): Promise<boolean>;
  give(): Promise<void>;
};

/**
 * Slots shared by every instance of one store: at most `cap` live leases per key. A lease
 * lapses `leaseMs` after it was taken or last renewed, so a dead holder's slot comes back.
 * Expiry is read on the store's clock, never an instance's, so instances' clocks need not agree.
 */
export interface LeaseStore {
  /** A lease on one of the `cap` slots of `key`, or null when all are held. */
  take(key: string, cap: number, leaseMs: number): Promise<Lease | null>;
}

// The server's clock in milliseconds. Scripts replicate by effects (Redis 5 and later, and
// Upstash), so TIME may be read before writing.
const NOW_MS = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`;

/**
 * KEYS[1] a sorted set of leases (member: lease id, score: expiry in ms); ARGV lease id, cap,
 * lease ms. Lapsed leases are dropped first. The set expires with its last lease: every take
 * and renewal sets that expiry, and the latest one is the furthest.
 */
const TAKE = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** KEYS[1] the set, ARGV lease id, lease ms: extends a live lease only. */
const RENEW = `${NOW_MS}
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not expiry or tonumber(expiry) <= now then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const GIVE = "return redis.call('ZREM', KEYS[1], ARGV[1])";

/**
 * Leases in a Redis-backed store (Redis or Upstash): a sorted set per key, each step one Lua
 * script, so it runs alike over a RESP connection and over Upstash's REST `EVAL`.
 */
export function storeLeases(store: KeyValueStore): LeaseStore {
  const { runScript } = store;
  if (runScript === undefined) throw new Error(`the ${store.kind} store runs no scripts`);
  const flag = async (script: string, key: string, args: string[]): Promise<boolean> => {
    const reply = await runScript(script, [key], args);
    if (reply !== 0 && reply !== 1) throw new StoreError("bad_reply", `EVAL replied ${String(reply)}`);
    return reply === 1;
  };
  return {
    async take(key, cap, leaseMs) {
      const id = crypto.randomUUID();
      if (!(await flag(TAKE, key, [id, String(cap), String(leaseMs)]))) return null;
      return {
        renew: (ms) => flag(RENEW, key, [id, String(ms)]),
        give: async () => {
          await runScript(GIVE, [key], [id]);
        },
      };
    },
  };
}

// A free slot is picked at random, so concurrent takers seldom pick the same one. When two
// do, the second waits for the first's insert and then finds the row live: it takes nothing
// and tries again later, so the cap holds without a lock.
const TAKE_SQL = `
  WITH free AS (
    SELECT s FROM generate_series(0, $2::int - 1) AS s
    WHERE NOT EXISTS (
      SELECT 1 FROM shared_leases l WHERE l.key = $1 AND l.slot = s AND l.expires_at > now())
    ORDER BY random() LIMIT 1)
  INSERT INTO shared_leases AS l (key, slot, lease_id, expires_at)
  SELECT $1, s, $3, now() + $4::int * interval '1 millisecond' FROM free
  ON CONFLICT (key, slot) DO UPDATE SET lease_id = EXCLUDED.lease_id, expires_at = EXCLUDED.expires_at
  WHERE l.expires_at <= now()
  RETURNING slot`;

const RENEW_SQL = `
  UPDATE shared_leases SET expires_at = now() + $4::int * interval '1 millisecond'
  WHERE key = $1 AND slot = $2 AND lease_id = $3 AND expires_at > now()
  RETURNING slot`;

const GIVE_SQL = "DELETE FROM shared_leases WHERE key = $1 AND slot = $2 AND lease_id = $3";

/**
 * Leases in the `shared_leases` table, for instances sharing Postgres without Redis: a row per
 * slot below the cap, each step one statement. `prefix` keeps environments sharing a database
 * apart, as STORE_KEY_PREFIX does for the key-value store.
 */
export function databaseLeases(database: Database, prefix = ""): LeaseStore {
  return {
    async take(key, cap, leaseMs) {
      const id = crypto.randomUUID();
      const name = prefix + key;
      const [row] = await database.prepared<{ slot: number }>(TAKE_SQL, [name, cap, id, leaseMs]);
      if (row === undefined) return null;
      const lease = [name, row.slot, id];
      return {
        renew: async (ms) => (await database.prepared(RENEW_SQL, [...lease, ms])).length > 0,
        give: async () => {
          await database.prepared(GIVE_SQL, lease);
        },
      };
    },
  };
}
