import type { Clock } from "../kernel/clock.ts";
import type { Database } from "../kernel/db.ts";
import { createDatabaseStore } from "./database.ts";
import type { KeyValueStore } from "./kv.ts";
import { createRedisStore } from "./redis.ts";
import { createUpstashStore } from "./upstash.ts";

export type KeyValueStoreConfig = {
  upstashUrl?: string;
  upstashToken?: string;
  redisUrl?: string;
  /** Rows of the database store at most; defaults to DEFAULT_DATABASE_MAX_ENTRIES. */
  databaseMaxEntries?: number;
  /** In-process copies in front of the database store; defaults to DEFAULT_MEMORY_MAX_ENTRIES. */
  memoryMaxEntries?: number;
  /** Upper bound for one call to a networked store. */
  timeoutMs: number;
};

/** Room for the VAT cache of one instance in process: entries are well under 1 KB each. */
export const DEFAULT_MEMORY_MAX_ENTRIES = 100_000;
/** A million VAT answers: a few hundred MB of table at most. */
export const DEFAULT_DATABASE_MAX_ENTRIES = 1_000_000;
/**
 * How long an instance sharing Postgres serves its in-process copy of an entry before it
 * reads the table again: another instance's newer answer is seen within this bound.
 */
const SHARED_COPY_MAX_AGE_SECONDS = 5;

/**
 * The store the configuration asks for: Upstash when both its URL and token are set, else
 * Redis when a Redis URL is set, else a table in `database` with in-process copies in front
 * (which `clock` expires). Half an Upstash configuration throws rather than quietly falling
 * back to another store.
 */
export function createKeyValueStore(
  config: KeyValueStoreConfig,
  context: { clock: Clock; database: Database },
): KeyValueStore {
  const { upstashUrl, upstashToken, redisUrl, timeoutMs } = config;
  if (Boolean(upstashUrl) !== Boolean(upstashToken)) {
    throw new Error("Upstash needs both a REST URL and a token; only one of them is set");
  }
  if (upstashUrl && upstashToken)
    return createUpstashStore({ url: upstashUrl, token: upstashToken, timeoutMs });
  if (redisUrl) return createRedisStore({ url: redisUrl, timeoutMs });
  return createDatabaseStore(context.database, {
    maxEntries: config.databaseMaxEntries ?? DEFAULT_DATABASE_MAX_ENTRIES,
    memoryMaxEntries: config.memoryMaxEntries ?? DEFAULT_MEMORY_MAX_ENTRIES,
    // Embedded PGlite has no other writer: its copies are as good as the table.
    memoryMaxAgeSeconds:
      context.database.kind === "pglite" ? Number.POSITIVE_INFINITY : SHARED_COPY_MAX_AGE_SECONDS,
    clock: context.clock,
  });
}
