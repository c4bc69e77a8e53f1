import { rmSync } from "node:fs";
import { join } from "node:path";
import { checkNewKey, type KeyAdmin } from "../accounts/admin.ts";
import { describeFailure } from "./failure.ts";
import type { Logger } from "./log.ts";

export const ADMIN_SOCKET_NAME = "admin.sock";

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, ADMIN_SOCKET_NAME);
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/**
 * The operator channel of a server running on embedded Postgres: a Unix socket in
 * DATA_DIR, readable by the owner only, where `keys` commands reach the database that the
 * server holds open. Nothing on it is reachable over the network.
 */
export function serveAdminSocket(dataDir: string, admin: KeyAdmin, log: Logger): { stop(): void } {
  const path = adminSocketPath(dataDir);
  // Only the data directory's owner gets here, so a socket at the path is a dead server's.
  rmSync(path, { force: true });
  // bind() creates the socket file with the mode the umask leaves: 0600 from the moment it
  // exists, where a chmod afterwards would leave a window. Bun.serve binds before it returns.
  const umask = process.umask(0o177);
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({ unix: path, fetch: (request) => answer(request, admin, log) });
  } finally {
    process.umask(umask);
  }
  return {
    stop() {
      server.stop(true);
      rmSync(path, { force: true });
    },
  };
}

async function answer(request: Request, admin: KeyAdmin, log: Logger): Promise<Response> {
  const url = new URL(request.url);
  const parts = url.pathname.split("/").filter(Boolean);
  try {
    if (request.method === "POST" && url.pathname === "/keys") {
      return json(201, await admin.create(checkNewKey((await request.json()) as Record<string, unknown>)));
    }
    if (request.method === "GET" && url.pathname === "/keys") return json(200, await admin.list());
    if (parts[0] === "keys" && parts.length >= 3 && parts[1]) {
      const keyId = decodeURIComponent(parts[1]);
      const command = `${request.method} ${parts.slice(2).join("/")}`;
      const result =
        command === "POST revoke"
          ? await admin.revoke(keyId)
          : command === "GET usage"
            ? await admin.usage(keyId)
            : command === "GET webhook-secret" || command === "POST webhook-secret/rotate"
              ? await admin.webhookSecret(keyId, command.startsWith("POST"))
              : undefined;
      if (result === null) return json(404, { error: `no key ${keyId}` });
      if (result !== undefined) return json(200, result);
    }
    return json(404, { error: `no admin command ${request.method} ${url.pathname}` });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.warn("admin_command_failed", { path: url.pathname, ...describeFailure(error) });
    return json(400, { error: message });
  }
}
