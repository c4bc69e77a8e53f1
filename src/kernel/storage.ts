import { sql } from "drizzle-orm";
import { KeyStore } from "../accounts/key-store.ts";
import { planCatalogue } from "../accounts/plans.ts";
import type { Config } from "../config.ts";
import { DataDirLock } from "./data-dir-lock.ts";
import { connectPostgres, type Database, openPglite } from "./db.ts";
import { describeFailure } from "./failure.ts";
import type { Logger } from "./log.ts";

export type Storage = { database: Database; close(): Promise<void> };

/**
 * Opens the configured database — Postgres when DATABASE_URL is set, else embedded PGlite
 * under DATA_DIR (locked to this process) — applies pending migrations and syncs the plan
 * table. An unreachable Postgres is retried with backoff for `startupTimeoutMs`.
 */
export async function openStorage(
  config: Config,
  log: Logger,
  role: string,
  startupTimeoutMs = 30_000,
): Promise<Storage> {
  if (config.DATABASE_URL) {
    const database = connectPostgres(config.DATABASE_URL, {
      max: config.DATABASE_POOL_SIZE,
      connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    });
    await waitForDatabase(database, log, startupTimeoutMs);
    await prepare(database, config);
    return { database, close: () => database.close() };
  }
  const lock = DataDirLock.acquire(config.DATA_DIR, role);
  try {
    const database = await openPglite(config.DATA_DIR);
    await prepare(database, config);
    return {
      database,
      async close() {
        await database.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function prepare(database: Database, config: Config): Promise<void> {
  await database.migrate();
  await new KeyStore(database).syncPlans(planCatalogue(config.GATEWAY_RATE_LIMIT_PER_MINUTE));
}

async function waitForDatabase(database: Database, log: Logger, timeoutMs: number): Promise<void> {
  const started = Date.now();
  for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
    try {
      await database.rows(sql`SELECT 1`);
      return;
    } catch (error) {
      const message = String(describeFailure(error).error);
      if (Date.now() - started + delay > timeoutMs) {
        await database.close().catch(() => {});
        throw new Error(
          `Postgres is unreachable after ${Math.round((Date.now() - started) / 1000)} s: ${message}`,
        );
      }
      log.warn("database_unreachable", { error: message, retry_in_ms: delay });
      await Bun.sleep(delay);
    }
  }
}
