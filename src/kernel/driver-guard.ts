import { describeFailure, stackFrames } from "./failure.ts";
import type { Logger } from "./log.ts";

/**
 * postgres.js 3.4.9 can throw from a timer when a connection closes while a write is queued
 * (`null is not an object (evaluating 'socket.write')`, porsager/postgres#1066, #1154, #1208),
 * where nothing can catch it: under load, a Postgres restart would end the process. This
 * recognises exactly that error — a TypeError about `write` thrown from the driver's
 * connection code — and logs it; the query it belonged to fails and is retried or answered
 * 503 like any other database failure. Any other uncaught error still ends the process.
 */
export function isPostgresDriverSocketBug(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /socket\.write|reading 'write'/.test(error.message) &&
    /postgres\/src\/connection\.js/.test(error.stack ?? "")
  );
}

export function guardAgainstDriverSocketBug(log: Logger): void {
  process.on("uncaughtException", (error) => {
    if (isPostgresDriverSocketBug(error)) {
      log.warn("postgres_driver_socket_error", { error: error.message });
      return;
    }
    log.error("uncaught_exception", { ...describeFailure(error), stack: stackFrames(error) });
    process.exit(1);
  });
}
