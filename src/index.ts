import { buildApp } from "./app.ts";
import { ConfigError, parseConfig } from "./config.ts";
import { adminSocketPath, serveAdminSocket } from "./kernel/admin-socket.ts";
import { systemClock } from "./kernel/clock.ts";
import { guardAgainstDriverSocketBug } from "./kernel/driver-guard.ts";
import { describeFailure } from "./kernel/failure.ts";
import { createLogger } from "./kernel/log.ts";
import { openStorage } from "./kernel/storage.ts";
import { createServices } from "./services.ts";

let config: ReturnType<typeof parseConfig>;
try {
  config = parseConfig(process.env);
} catch (error) {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(2);
}

const log = createLogger(config.LOG_LEVEL);
if (config.DATABASE_URL) guardAgainstDriverSocketBug(log);

// Until the service listens there is nothing to drain: a signal (an orchestrator giving up on
// a start that waits for Postgres, say) ends it at once. `shutdown` takes over once it listens.
let running: ((signal: string) => Promise<void>) | null = null;
const onSignal = (signal: string) => {
  if (running) return void running(signal);
  log.info("stopped_during_startup", { signal });
  process.exit(0);
};
process.on("SIGTERM", () => onSignal("SIGTERM"));
process.on("SIGINT", () => onSignal("SIGINT"));
let services: ReturnType<typeof createServices>;
try {
  const storage = await openStorage(config, log, "server", config.STARTUP_TIMEOUT_MS);
  services = createServices(config, { clock: systemClock, log, storage });
} catch (error) {
  log.error("startup_failed", describeFailure(error));
  process.exit(1);
}

// A shared store that is down does not stop the service: caches degrade to VIES and
// per-minute windows to in-process counting until it answers again.
await services.store.ping().then(
  () => log.info("store_connected", { store: services.store.kind }),
  (error: unknown) =>
    log.warn("store_unreachable_starting_degraded", {
      store: services.store.kind,
      ...describeFailure(error),
    }),
);

const app = buildApp(services).listen({
  port: config.PORT,
  hostname: config.HOST,
  // Body size is the app's business (MAX_BODY_BYTES, refused with the error body before the
  // body is read); Bun's own limit would answer a bare 413 with no body and no request id.
  maxRequestBodySize: Number.POSITIVE_INFINITY,
});
const admin = config.DATABASE_URL ? null : serveAdminSocket(config.DATA_DIR, services.keyAdmin, log);
services.startBackgroundWork();
log.info("listening", {
  port: app.server?.port,
  database: services.database.kind,
  store: services.store.kind,
  admin_socket: config.DATABASE_URL ? null : adminSocketPath(config.DATA_DIR),
  registry: services.iban.registryVersion,
});

/**
 * Stops accepting connections, lets in-flight requests finish (each settles its own billing
 * reservation) for up to SHUTDOWN_TIMEOUT_MS, waits for the meter's last commits, releases
 * unbilled the reservations of requests cut off at the bound, closes the database and the
 * store, and exits 0.
 */
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info("shutting_down", { signal, pending_requests: app.server?.pendingRequests });
  try {
    admin?.stop();
    // Batch items under way finish alongside the requests, within the same bound.
    const workersStopped = services.stopBackgroundWork(config.SHUTDOWN_TIMEOUT_MS);
    const drained = await Promise.race([
      app.stop(false).then(() => true),
      Bun.sleep(config.SHUTDOWN_TIMEOUT_MS).then(() => false),
    ]);
    if (!drained) {
      log.warn("shutdown_timeout", { pending_requests: app.server?.pendingRequests });
      await app.stop(true);
    }
    await workersStopped;
    await services.close();
  } catch (error) {
    log.error("shutdown_failed", describeFailure(error));
    process.exit(1);
  }
  log.info("stopped", { signal });
  process.exit(0);
}
running = shutdown;
