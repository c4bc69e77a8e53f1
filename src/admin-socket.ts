import { chmodSync, rmSync } from "node:fs";
import { join } from "node:path";
import { checkNewKey, type KeyAdmin } from "./accounts/admin.ts";
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
  rmSync(path, { force: true });
  const server = Bun.serve({
    unix: path,
    async fetch(request) {
      const url = new URL(request.url);
      const parts = url.pathname.split("/").filter(Boolean);
      try {
        if (request.method === "POST" && url.pathname === "/keys") {
          return json(
            201,
            await admin.create(checkNewKey((await request.json()) as Record<string, unknown>)),
          );
        }
        if (request.method === "GET" && url.pathname === "/keys") return json(200, await admin.list());
        if (parts[0] === "keys" && parts.length === 3 && parts[1]) {
          const keyId = decodeURIComponent(parts[1]);
          const result =
            request.method === "POST" && parts[2] === "revoke"
              ? await admin.revoke(keyId)
              : request.method === "GET" && parts[2] === "usage"
                ? await admin.usage(keyId)
                : undefined;
          if (result === null) return json(404, { error: `no key ${keyId}` });
          if (result !== undefined) return json(200, result);
        }
        return json(404, { error: `no admin command ${request.method} ${url.pathname}` });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log.warn("admin_command_failed", { path: url.pathname, error: message });
        return json(400, { error: message });
      }
    },
  });
  chmodSync(path, 0o600);
  return {
    stop() {
      server.stop(true);
      rmSync(path, { force: true });
    },
  };
}
