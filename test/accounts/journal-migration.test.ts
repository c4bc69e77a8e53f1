import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { KeyStore } from "../../src/accounts/key-store.ts";
import { planCatalogue } from "../../src/accounts/plans.ts";
import { openPglite } from "../../src/kernel/db.ts";
import { ROOT } from "../support/service.ts";

/**
 * An embedded database left by the previous meter, which recorded usage as rows of
 * `usage_journal`, keeps every counted request and billed unit through the upgrade: the data
 * migration folds the journal into `usage_months` before the next one drops the table.
 * Runs on its own in-memory PGlite in both CI runs.
 */
const scratch = mkdtempSync(join(tmpdir(), "journal-migration-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The migrations folder as it was before the usage log: the first `count` migrations. */
function migrationsUpTo(count: number): string {
  const source = join(ROOT, "db/migrations");
  const folder = join(scratch, `migrations-${count}`);
  mkdirSync(join(folder, "meta"), { recursive: true });
  const journal = JSON.parse(readFileSync(join(source, "meta/_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  journal.entries = journal.entries.slice(0, count);
  for (const { tag } of journal.entries) cpSync(join(source, `${tag}.sql`), join(folder, `${tag}.sql`));
  writeFileSync(join(folder, "meta/_journal.json"), JSON.stringify(journal));
  return folder;
}

test("usage left in usage_journal by the previous version is in usage_months after migrating", async () => {
  const database = await openPglite(null);
  try {
    await migrate(database.db as unknown as ReturnType<typeof drizzle>, {
      migrationsFolder: migrationsUpTo(4),
    });
    await new KeyStore(database).syncPlans(planCatalogue(600));
    // Keys as the schema of that time holds them.
    const [a, b] = ["key_journal0000000a", "key_journal0000000b"];
    for (const id of [a, b]) {
      await database.rows(
        sql`INSERT INTO api_keys (id, kind, secret_hash, plan_id) VALUES (${id}, 'direct', ${`hash-${id}`}, 'free')`,
      );
    }
    await database.rows(
      sql`INSERT INTO usage_months (key_id, month, requests, used) VALUES (${a}, '2026-03-01', 10, 7)`,
    );
    await database.rows(sql`
      INSERT INTO usage_journal (key_ids, months, requests, units) VALUES
        (ARRAY[${a}, ${b}]::text[], ARRAY['2026-03-01', '2026-03-01']::date[], ARRAY[3, 2], ARRAY[1, 2]),
        (ARRAY[${a}, ${a}]::text[], ARRAY['2026-03-01', '2026-04-01']::date[], ARRAY[1, 4], ARRAY[1, 0])`);

    await database.migrate();

    const rows = await database.rows<{ key_id: string; month: string; requests: number; used: number }>(sql`
      SELECT key_id, to_char(month, 'YYYY-MM-DD') AS month, requests, used FROM usage_months
      WHERE key_id IN (${a}, ${b}) ORDER BY key_id = ${b}, month`);
    expect(rows).toEqual([
      { key_id: a, month: "2026-03-01", requests: 14, used: 9 },
      { key_id: a, month: "2026-04-01", requests: 4, used: 0 },
      { key_id: b, month: "2026-03-01", requests: 2, used: 2 },
    ]);
    const journal = await database.rows<{ name: string | null }>(
      sql`SELECT to_regclass('usage_journal')::text AS name`,
    );
    expect(journal).toEqual([{ name: null }]);
  } finally {
    await database.close();
  }
});
