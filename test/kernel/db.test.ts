import { afterAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { connectPostgres } from "../../src/kernel/db.ts";
import { secondConnection, usingPostgres } from "../support/database.ts";

/**
 * The driver's two defects below are fixed by `db/patches`; each test reproduces one on a real
 * server (PGlite has no sessions to end) and fails on the unpatched driver.
 *
 * postgres.js 3.4.9 replays the error of a session the server ended while a query ran onto the
 * first query of the next session (porsager/postgres#1223): after a Postgres restart, one
 * request per such connection failed although the server was back.
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

/**
 * postgres.js 3.4.9 leaves the handle of a cancelled flush behind when a socket closes with a
 * write pending; the next session's StartupMessage then waits behind it, unsent, until
 * connect_timeout. After a Postgres restart under load this stalled a batch of meter writes
 * for two seconds.
 */
describe.if(usingPostgres)("the Postgres driver after a socket closes with a write pending", () => {
  test("the next session starts at once", async () => {
    const server = new URL(process.env.DATABASE_URL ?? "");
    const sockets: Socket[] = [];
    let closeWhenSent = "";
    // `socket` is a documented option the type definitions lack.
    const options = {
      max: 1,
      connect_timeout: 2,
      onnotice: () => {},
      socket: () => {
        const socket = connect(Number(server.port || 5432), server.hostname);
        sockets.push(socket);
        return socket;
      },
      // Called as the query is queued for writing, before the flush runs: the moment to close.
      debug: (_connection: number, text: string) => {
        if (text === closeWhenSent) sockets.at(-1)?.destroy();
      },
    };
    const client = postgres(server.href, options);
    try {
      expect([...(await client`SELECT 1 AS one`)]).toEqual([{ one: 1 }]);
      closeWhenSent = "SELECT 2 AS two";
      expect(await client`SELECT 2 AS two`.catch((error) => error.code)).toBe("CONNECTION_CLOSED");
      const third = await client`SELECT 3 AS three`.then(
        (rows) => [...rows],
        (error) => error.code,
      );
      expect(third).toEqual([{ three: 3 }]);
      expect(sockets).toHaveLength(2);
    } finally {
      await client.end({ timeout: 0 });
    }
  });
});
