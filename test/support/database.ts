import { describe } from "bun:test";
import { sql } from "drizzle-orm";
import { KeyStore } from "../../src/accounts/key-store.ts";
import { planCatalogue } from "../../src/accounts/plans.ts";
import { connectPostgres, type Database, openPglite } from "../../src/kernel/db.ts";

/**
 * The database the suite runs against: the Postgres at DATABASE_URL when set (CI's second
 * run), else an in-memory PGlite. One per test process, migrated once; tests keep out of
 * each other's way by creating their own keys.
 */
let shared: Promise<Database> | null = null;

export const usingPostgres = Boolean(process.env.DATABASE_URL);

/**
 * `describe` for the tests of the embedded deployment itself: services of their own on a data
 * directory, whose environment drops the service's settings, so that DATABASE_URL and REDIS_URL
 * change nothing in them. The embedded run has them; the run on real servers would repeat them
 * word for word (100,000 monitors, a browser), so they are not registered there — not skipped:
 * no part of them depends on those servers.
 */
export const describeEmbedded: (name: string, body: () => void) => void = usingPostgres ? () => {} : describe;

export function testDatabase(): Promise<Database> {
  if (!shared) {
    shared = (async () => {
      const database = process.env.DATABASE_URL
        ? connectPostgres(process.env.DATABASE_URL)
        : await openPglite(null);
      await database.migrate();
      return database;
    })();
  }
  return shared;
}

/** A second, independent connection pool to the same database, as another instance would have. */
export function secondConnection(): Database | null {
  return process.env.DATABASE_URL ? connectPostgres(process.env.DATABASE_URL) : null;
}

/** The test database with the plans in place, and a key store on it. */
export async function testKeyStore(): Promise<{ database: Database; keys: KeyStore }> {
  const database = await testDatabase();
  const keys = new KeyStore(database);
  await keys.syncPlans(planCatalogue(600));
  return { database, keys };
}

/** A new key of the pro plan without quota or rate overrides, named `name`: its id. */
/**
 * Deletes these keys' background work — monitors, batches (their items and messages with them)
 * and its due marks — from the shared test database. Left there, monitors are due forever and
 * a waiting or abandoned batch is due again later: the next file's workers (and, on Postgres,
 * the next run's) would take it up against their own VIES fake, and then find its numbers in
 * their cache when their own tests ask for them fresh.
 */
export async function deleteWorkOf(database: Database, keyIds: string[]): Promise<void> {
  const own = sql`(SELECT value FROM jsonb_array_elements_text(${JSON.stringify(keyIds)}::jsonb))`;
  await database.rows(sql`DELETE FROM monitors WHERE key_id IN ${own}`);
  await database.rows(sql`DELETE FROM batches WHERE key_id IN ${own}`);
  await database.rows(sql`DELETE FROM work_due WHERE key_id IN ${own}`);
}

export async function proKey(keys: KeyStore, name: string): Promise<string> {
  const { record } = await keys.create({ planId: "pro", name, monthlyQuota: null, ratePerMinute: null });
  return record.id;
}
