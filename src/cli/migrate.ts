import { ConfigError, parseConfig } from "../config.ts";
import { createLogger } from "../kernel/log.ts";
import { openStorage } from "../kernel/storage.ts";

/** `npm run db:migrate`: applies pending migrations to the configured database and exits. */
try {
  const config = parseConfig(process.env);
  const log = createLogger(config.LOG_LEVEL, (line) => process.stderr.write(`${line}\n`));
  const storage = await openStorage(config, log, "db:migrate");
  await storage.close();
  process.stdout.write(
    `migrated ${config.DATABASE_URL ? "Postgres at DATABASE_URL" : `embedded database in ${config.DATA_DIR}`}\n`,
  );
} catch (error) {
  process.stderr.write(`db:migrate: ${error instanceof Error ? error.message : String(error)}\n`);
  // As for `keys`: 2 for a configuration to fix, 1 for a run that failed.
  process.exitCode = error instanceof ConfigError ? 2 : 1;
}
