import { sql } from "drizzle-orm";
import { Batcher } from "../kernel/batcher.ts";
import type { Clock } from "../kernel/clock.ts";
import type { Database } from "../kernel/db.ts";
import { describeFailure } from "../kernel/failure.ts";
import type { Logger } from "../kernel/log.ts";
import type { KeyValueStore } from "../store/kv.ts";

const WINDOW_MS = 60_000;

/** Adds one to the counter of a window and returns the new count. */
export type WindowCounter = (keyId: string, windowStartMs: number) => Promise<number>;

export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until a request would be admitted again (0 when allowed). */
  retryAfterSeconds: number;
};

/**
 * Per-minute limit in fixed windows aligned to the UTC minute: at most `limit` requests of
 * a key are admitted between hh:mm:00 and hh:mm:59.999. Every request counts, admitted or not.
 */
export class RateLimiter {
  constructor(
    private readonly counter: WindowCounter,
    private readonly clock: Clock,
  ) {}

  async hit(keyId: string, limit: number): Promise<RateDecision> {
    const now = this.clock.now();
    const windowStart = now - (now % WINDOW_MS);
    const count = await this.counter(keyId, windowStart);
    const allowed = count <= limit;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - count),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)),
    };
  }
}

/**
 * Windows in this process: the embedded default, and the fallback while Redis cannot be
 * reached. Windows are aligned to the UTC minute for every key, so one map holds the counts of
 * the current minute — an entry per key that called in it, only keys that authenticated — and
 * is dropped when the next minute begins. A count per request is a map update: a general
 * key-value store (string values, expiry, LRU order) cost 1.5 µs of CPU per request here.
 */
export function memoryCounter(): WindowCounter {
  let window = Number.NaN;
  let counts = new Map<string, number>();
  return async (keyId, windowStartMs) => {
    // A clock stepping back across a minute starts the count again: lenient, and rare.
    if (windowStartMs !== window) {
      window = windowStartMs;
      counts = new Map();
    }
    const count = (counts.get(keyId) ?? 0) + 1;
    counts.set(keyId, count);
    return count;
  };
}

/** Windows in a shared key-value store (Redis, Upstash). */
export function storeCounter(store: KeyValueStore): WindowCounter {
  // Two windows' worth of expiry: the key outlives its minute even if clocks differ a little.
  return (keyId, windowStartMs) => store.incr(`rl:${keyId}:${windowStartMs / WINDOW_MS}`, 1, 120);
}

/**
 * Uses `primary` and, while it fails, `fallback` — so an unreachable Redis turns the limit
 * into a per-instance one instead of refusing every request.
 */
export function counterWithFallback(
  primary: WindowCounter,
  fallback: WindowCounter,
  log: Logger,
  onFailure: () => void = () => {},
): WindowCounter {
  let failing = false;
  return async (keyId, windowStartMs) => {
    try {
      const count = await primary(keyId, windowStartMs);
      if (failing) log.info("rate_limit_store_recovered");
      failing = false;
      return count;
    } catch (error) {
      onFailure();
      if (!failing) log.warn("rate_limit_store_failed", describeFailure(error));
      failing = true;
      return fallback(keyId, windowStartMs);
    }
  };
}

/** `counter`, telling `onFailure` of each failure (which it passes on). */
export function countingFailures(counter: WindowCounter, onFailure: () => void): WindowCounter {
  return async (keyId, windowStartMs) => {
    try {
      return await counter(keyId, windowStartMs);
    } catch (error) {
      onFailure();
      throw error;
    }
  };
}

/**
 * Windows in Postgres, for several instances sharing a database without Redis. Increments
 * are group-committed, one statement per batch.
 */
export function databaseCounter(database: Database): WindowCounter {
  let lastCleanupMs = 0;
  const commits = new Batcher<{ keyId: string; windowStartMs: number }, number>(async (items) => {
    const totals = new Map<string, number>();
    for (const item of items) {
      const id = `${item.keyId}|${item.windowStartMs}`;
      totals.set(id, (totals.get(id) ?? 0) + 1);
    }
    const ordered = [...totals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const rows = await database.rows<{ key_id: string; window_ms: string | number; count: number }>(sql`
      INSERT INTO rate_windows (key_id, window_start, count)
      SELECT d.key_id, to_timestamp(d.window_ms / 1000.0), d.n
      FROM jsonb_to_recordset(${JSON.stringify(
        ordered.map(([id, n]) => {
          const [keyId, windowMs] = id.split("|");
          return { key_id: keyId, window_ms: Number(windowMs), n };
        }),
      )}::jsonb) AS d(key_id text, window_ms bigint, n int)
      ORDER BY d.key_id, d.window_ms
      ON CONFLICT (key_id, window_start) DO UPDATE SET count = rate_windows.count + EXCLUDED.count
      RETURNING key_id, (extract(epoch FROM window_start) * 1000)::bigint AS window_ms, count`);
    // The statement returns each window's count after the whole batch; hand the batch's
    // increments out in arrival order, ending at that count.
    const next = new Map<string, number>();
    for (const row of rows) {
      const id = `${row.key_id}|${Number(row.window_ms)}`;
      next.set(id, row.count - (totals.get(id) ?? 0));
    }
    const newest = Math.max(...items.map((item) => item.windowStartMs));
    if (newest - lastCleanupMs >= WINDOW_MS) {
      lastCleanupMs = newest;
      await database.rows(
        sql`DELETE FROM rate_windows WHERE window_start < to_timestamp(${(newest - WINDOW_MS) / 1000})`,
      );
    }
    return items.map((item) => {
      const id = `${item.keyId}|${item.windowStartMs}`;
      const count = (next.get(id) ?? 0) + 1;
      next.set(id, count);
      return count;
    });
  });
  return (keyId, windowStartMs) => commits.submit({ keyId, windowStartMs });
}
