import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { type SQL, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import * as schema from "../../db/schema.ts";

export type Schema = typeof schema;
/** The Drizzle API shared by the embedded and the server driver. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

/**
 * A value as JSON for a `jsonb` parameter. Postgres text cannot hold U+0000 or half of a UTF-16
 * pair, and `jsonb` refuses their escapes: a string that arrives with one (from a caller, or an
 * upstream) loses the NUL, and a lone half becomes U+FFFD.
 */
export function jsonb(value: unknown): string {
  return JSON.stringify(value, (_, item) =>
    typeof item === "string" ? item.replaceAll("\u0000", "").toWellFormed() : item,
  );
}

/**
 * Lets the event loop take a turn. Embedded PGlite runs each statement on this thread and
 * settles its promise without one, so a chain of statements (a batch's inserts, a
 * transaction's steps) would hold every other request — `/health` included — until the whole
 * chain is done. Work made of many statements calls this between them; on Postgres it costs
 * a turn and nothing else.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs raw SQL and returns its rows: on the database, or inside a transaction. */
export type Rows = <R>(query: SQL) => Promise<R[]>;

export interface Database {
  readonly kind: "pglite" | "postgres";
  readonly db: Db;
  /** Where embedded PGlite keeps its files; null for Postgres and for an in-memory PGlite. */
  readonly dataDir: string | null;
  /** Runs raw SQL and returns its rows, whichever driver is underneath. */
  rows<T>(query: SQL): Promise<T[]>;
  /**
   * Runs one parameterized statement as a prepared statement, for the hot paths where
   * Drizzle's query building and the server's re-planning of unnamed statements would cost
   * more than the statement itself. Arrays are passed as Postgres arrays.
   */
  prepared<T>(text: string, params: unknown[]): Promise<T[]>;
  /** Runs `work` in one transaction; `rows` inside it runs raw SQL on that transaction. */
  transaction<T>(work: (rows: Rows) => Promise<T>): Promise<T>;
  /** Applies pending migrations; safe when several instances start at once. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../db/migrations", import.meta.url));
// Any constant works; it only has to be the same for every instance of this service.
const MIGRATION_LOCK_ID = 7_261_432_001;

function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}

function rawAccess(db: Db): Pick<Database, "rows" | "transaction"> {
  return {
    rows: async (query) => rowsOf(await db.execute(query)),
    transaction: (work) => db.transaction((tx) => work(async (query) => rowsOf(await tx.execute(query)))),
  };
}

/** Postgres through the `postgres` driver, for `DATABASE_URL`. */
export function connectPostgres(
  url: string,
  options: { max?: number; connectTimeoutMs?: number } = {},
): Database {
  // A connection attempt that hangs (a host dropping packets, a Postgres shutting down or
  // starting up) holds the requests waiting for it, so it is bounded tightly.
  const connectTimeoutSeconds = (options.connectTimeoutMs ?? 2000) / 1000;
  const client = postgres(url, {
    max: options.max ?? 10,
    connect_timeout: connectTimeoutSeconds,
    // Seconds before reconnecting. The driver's default grows to 20 s and queries wait for
    // it, so a short Postgres outage would stall every request for that long afterwards;
    // this keeps failures fast (503 at once) and recovery within half a second.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
    onnotice: () => {},
    connection: { application_name: "vat-iban-service" },
  });
  const db = drizzlePostgres(client, { schema }) as unknown as Db;
  return {
    kind: "postgres",
    db,
    dataDir: null,
    ...rawAccess(db),
    prepared: async <T>(text: string, params: unknown[]) =>
      (await client.unsafe(text, params as never[], { prepare: true })) as unknown as T[],
    async migrate() {
      // A session-level advisory lock on one dedicated connection serializes concurrent
      // starts: the second instance waits, then finds nothing left to apply.
      const single = postgres(url, { max: 1, connect_timeout: connectTimeoutSeconds, onnotice: () => {} });
      try {
        await single`SELECT pg_advisory_lock(${MIGRATION_LOCK_ID})`;
        await migratePostgres(drizzlePostgres(single), { migrationsFolder: MIGRATIONS_FOLDER });
        await single`SELECT pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
      } finally {
        await single.end({ timeout: 5 });
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * Embedded Postgres (PGlite) with its data under `dataDir`, or in memory when `dataDir` is
 * null. Only one process may open a data directory; `src/kernel/data-dir-lock.ts` guards that.
 */
export async function openPglite(dataDir: string | null): Promise<Database> {
  let client: PGlite;
  if (dataDir === null) {
    client = new PGlite();
  } else {
    mkdirSync(dataDir, { recursive: true });
    client = new PGlite(join(dataDir, "pglite"));
  }
  await client.waitReady;
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    kind: "pglite",
    db,
    dataDir,
    ...rawAccess(db),
    prepared: async <T>(text: string, params: unknown[]) => (await client.query<T>(text, params)).rows,
    migrate: () => migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_FOLDER }),
    close: () => client.close(),
  };
}

/** Answers when the database does; used by readiness checks. */
export async function pingDatabase(database: Database): Promise<void> {
  await database.rows(sql`SELECT 1`);
}
