import { adminSocketPath, serveAdminSocket } from "./admin-socket.ts";
import { buildApp } from "./app.ts";
import { systemClock } from "./clock.ts";
import { ConfigError, parseConfig } from "./config.ts";
import { createLogger } from "./log.ts";
import { createServices } from "./services.ts";
import { openStorage } from "./storage.ts";

let config: ReturnType<typeof parseConfig>;
try {
  config = parseConfig(process.env);
} catch (error) {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(2);
}

const log = createLogger(config.LOG_LEVEL);
let services: ReturnType<typeof createServices>;
try {
  const storage = await openStorage(config, log, "server");
  services = createServices(config, { clock: systemClock, log, storage });
} catch (error) {
  log.error("startup_failed", { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

const app = buildApp(services).listen({
  port: config.PORT,
  hostname: config.HOST,
  maxRequestBodySize: 1_048_576,
});
const admin = config.DATABASE_URL ? null : serveAdminSocket(config.DATA_DIR, services.keyAdmin, log);
log.info("listening", {
  port: app.server?.port,
  database: services.database.kind,
  store: services.store.kind,
  admin_socket: config.DATABASE_URL ? null : adminSocketPath(config.DATA_DIR),
  registry: services.iban.registryVersion,
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("shutting_down", { signal });
  admin?.stop();
  await app.stop(false);
  await services.close();
  log.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
