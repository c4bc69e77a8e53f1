import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { openPglite } from "../../src/kernel/db.ts";
import { BUN, type Exit, ROOT, sandbox, serviceEnv } from "../support/service.ts";

// Real processes, and a first start of embedded Postgres, take longer than bun's 5 s default.
setDefaultTimeout(120_000);

const box = sandbox();
afterAll(() => box.cleanup());

const MIGRATIONS = (
  JSON.parse(readFileSync(join(ROOT, "db/migrations/meta/_journal.json"), "utf8")) as { entries: unknown[] }
).entries.length;

/** What `npm run` printed after its own banner lines. */
function scriptOutput(exit: Exit): string {
  return exit.stdout
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("> "))
    .join("\n");
}

describe("npm run db:migrate on the embedded database", () => {
  test("creates the database in an empty DATA_DIR, then finds nothing left to do", async () => {
    const dataDir = join(box.tempDir(), "data");
    const env = serviceEnv({ DATA_DIR: dataDir });
    for (let run = 0; run < 2; run++) {
      const exit = await box.npmRun("db:migrate", [], env);
      expect(exit.code).toBe(0);
      expect(scriptOutput(exit)).toBe(`migrated embedded database in ${dataDir}`);
      expect(readFileSync(join(dataDir, "owner.pid"), "utf8")).toBe("");
    }
    expect(readdirSync(dataDir).sort()).toEqual(["owner.pid", "pglite"]);

    const database = await openPglite(dataDir);
    try {
      const applied = await database.rows<{ count: number }>(
        sql`SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations`,
      );
      expect(applied[0]?.count).toBe(MIGRATIONS);
    } finally {
      await database.close();
    }
  });
});

// A database of its own, created for this test and dropped after it: the shared test
// database is migrated already by every other suite, which would prove nothing.
describe.if(Boolean(process.env.DATABASE_URL))("npm run db:migrate on Postgres", () => {
  const name = `cli_migrate_${crypto.randomUUID().replaceAll("-", "")}`;
  let admin: postgres.Sql;
  let url: URL;

  beforeAll(async () => {
    admin = postgres(process.env.DATABASE_URL ?? "", { max: 1, onnotice: () => {} });
    url = new URL(process.env.DATABASE_URL ?? "");
    url.pathname = `/${name}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
  });
  afterAll(async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  test("migrates an empty database, then finds nothing left to do", async () => {
    const env = serviceEnv({ DATABASE_URL: url.href, DATA_DIR: box.tempDir() });
    for (let run = 0; run < 2; run++) {
      const exit = await box.npmRun("db:migrate", [], env);
      expect(exit.code).toBe(0);
      expect(scriptOutput(exit)).toBe("migrated Postgres at DATABASE_URL");
    }
    expect(readdirSync(env.DATA_DIR ?? "")).toEqual([]);

    const fresh = postgres(url.href, { max: 1, onnotice: () => {} });
    try {
      const [applied] = await fresh`SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations`;
      expect(applied?.count).toBe(MIGRATIONS);
      const plans = await fresh`SELECT id FROM plans ORDER BY id`;
      expect(plans.map((plan) => plan.id)).toEqual(["basic", "free", "pro", "rapidapi"]);
    } finally {
      await fresh.end();
    }
  });

  test("three instances migrating one empty database at once: each succeeds, each migration runs once", async () => {
    const concurrent = `${name}_concurrent`;
    await admin.unsafe(`CREATE DATABASE ${concurrent}`);
    try {
      const target = new URL(url.href);
      target.pathname = `/${concurrent}`;
      const env = serviceEnv({ DATABASE_URL: target.href, DATA_DIR: box.tempDir() });
      const exits = await Promise.all([0, 1, 2].map(() => box.run([BUN, "src/cli/migrate.ts"], env)));
      expect(exits.map((exit) => exit.code)).toEqual([0, 0, 0]);
      const fresh = postgres(target.href, { max: 1, onnotice: () => {} });
      try {
        const [applied] = await fresh`SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations`;
        expect(applied?.count).toBe(MIGRATIONS);
      } finally {
        await fresh.end();
      }
    } finally {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${concurrent} WITH (FORCE)`);
    }
  });
});
