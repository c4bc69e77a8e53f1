import { connectPostgres, type Database, openPglite } from "../../src/db.ts";

/**
 * The database the suite runs against: the Postgres at DATABASE_URL when set (CI's second
 * run), else an in-memory PGlite. One per test process, migrated once; tests keep out of
 * each other's way by creating their own keys.
 */
let shared: Promise<Database> | null = null;

export const usingPostgres = Boolean(process.env.DATABASE_URL);

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
