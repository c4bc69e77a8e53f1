import type { CreatedKey } from "../../src/accounts/admin.ts";
import { adminSocketPath } from "../../src/kernel/admin-socket.ts";

/** One command to a running embedded server through its admin socket, as the `keys` command sends it. */
export async function adminCommand<T>(
  dataDir: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`http://localhost${path}`, {
    method,
    unix: adminSocketPath(dataDir),
    headers: { "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!response.ok)
    throw new Error(`admin socket ${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Issues a key as `keys create` does with a server running. */
export const createKeyOverSocket = (dataDir: string, plan: string, name: string) =>
  adminCommand<CreatedKey>(dataDir, "POST", "/keys", { plan, name, quota: null, rate: null });
