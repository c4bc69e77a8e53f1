import { afterAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { connectPostgres } from "../src/db.ts";
import { secondConnection, usingPostgres } from "./support/database.ts";

/**
 * postgres.js 3.4.9 replays the error of a session the server ended while a query ran onto the
 * first query of the next session (porsager/postgres#1223): after a Postgres restart, one
 * request per such connection failed although the server was back. `db/patches` fixes the
 * driver; this is the reproduction, on a real server (PGlite has no other sessions).
 */
describe.if(usingPostgres)("the Postgres driver after the server ends a session", () => {
  const admin = secondConnection();
  afterAll(() => admin?.close());

  test("a query in flight fails; the next one runs on a new session", async () => {
    const database = connectPostgres(process.env.DATABASE_URL ?? "", { max: 1 });
    try {
      const [session] = await database.rows<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`);
      const inFlight = database.rows(sql`SELECT pg_sleep(2)`).then(
        () => "finished",
        () => "failed",
      );
      await Bun.sleep(200);
      await admin?.rows(sql`SELECT pg_terminate_backend(${session?.pid})`);
      expect(await inFlight).toBe("failed");
      const [next] = await database.rows<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`);
      expect(next?.pid).not.toBe(session?.pid);
    } finally {
      await database.close();
    }
  });
});
