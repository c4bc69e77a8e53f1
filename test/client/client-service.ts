/**
 * A real service for the client's tests: a server process on the embedded default with the VIES
 * fake, webhooks allowed to a receiver on loopback, and keys issued through its admin socket.
 */
import { join } from "node:path";
import type { CreatedKey } from "../../src/accounts/admin.ts";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { adminCommand } from "../support/admin-socket.ts";
import { type RunningServer, type Sandbox, sandbox, serviceEnv } from "../support/service.ts";

/** The set-up's budget: starting a server process takes seconds of CPU, far longer on a busy machine. */
export const SERVICE_START_MS = 120_000;

export type ClientService = {
  server: RunningServer;
  vies: ViesFake;
  /** A key of `plan`, with a monthly quota of its own when given. */
  key(plan: string, quota?: number): Promise<CreatedKey>;
  /** The key's webhook signing secret (`whsec_…`), as `keys webhook-secret` shows it. */
  webhookSecret(keyId: string): Promise<string>;
  stop(): Promise<void>;
};

export async function startClientService(): Promise<ClientService> {
  const box: Sandbox = sandbox();
  const vies = await startViesFake();
  const dataDir = join(box.tempDir(), "data");
  const server = await box.startServer(
    serviceEnv({
      DATA_DIR: dataDir,
      VIES_BASE_URL: vies.baseUrl,
      // No test here checks a Swiss or Norwegian number: a closed port, so none could reach out.
      CH_UID_BASE_URL: "http://127.0.0.1:9",
      NO_BRREG_BASE_URL: "http://127.0.0.1:9",
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_BACKOFF_BASE_MS: "100",
    }),
  );
  return {
    server,
    vies,
    key: (plan, quota) =>
      adminCommand<CreatedKey>(dataDir, "POST", "/keys", {
        plan,
        name: "client test",
        quota: quota ?? null,
        rate: null,
      }),
    webhookSecret: async (keyId) =>
      (await adminCommand<{ webhook_secret: string }>(dataDir, "GET", `/keys/${keyId}/webhook-secret`))
        .webhook_secret,
    async stop() {
      await box.cleanup();
      await vies.stop();
    },
  };
}
