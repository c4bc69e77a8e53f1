import { afterAll, beforeAll, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminSocketPath } from "../../src/kernel/admin-socket.ts";
import { connectPostgres } from "../../src/kernel/db.ts";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { createKeys } from "./billing-rows.ts";
import { deleteWorkOf } from "./database.ts";
import { type ServiceProcess, serviceProcess, stopAllServices } from "./service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

/** Where the crash tests run: the embedded default, and Postgres when DATABASE_URL is set. */
export const DEPLOYMENTS = [
  { name: "embedded", postgres: false },
  ...(process.env.DATABASE_URL ? [{ name: "Postgres", postgres: true }] : []),
];
export type Deployment = (typeof DEPLOYMENTS)[number];

const METRICS_TOKEN = "crash-metrics-token";

/**
 * What the background-work crash tests of a file share: one VIES fake and one webhook receiver
 * for the file; service processes that poll and retry fast; and, after the file, every process
 * stopped, every data directory removed, and the work of the keys made on the shared Postgres
 * deleted (left there, the next run's workers would take it up).
 */
export function crashRig(name: string) {
  let vies: ViesFake | undefined;
  let receiver: WebhookReceiver | undefined;
  const directories: string[] = [];
  const postgresKeys: string[] = [];
  beforeAll(async () => {
    vies = await startViesFake();
    receiver = startWebhookReceiver();
  });
  afterAll(async () => {
    await stopAllServices();
    await vies?.stop();
    await receiver?.stop();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
    if (process.env.DATABASE_URL && postgresKeys.length > 0) {
      const database = connectPostgres(process.env.DATABASE_URL);
      await deleteWorkOf(database, postgresKeys);
      await database.close();
    }
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the crash rig has not started");
    return value;
  };

  return {
    vies: () => started(vies),
    receiver: () => started(receiver),
    /**
     * Service processes of `deployment` on one data directory of their own (`settings` on top of
     * the rig's), and keys for them.
     */
    on(deployment: Deployment, settings: Record<string, string> = {}) {
      const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
      directories.push(dataDir);
      return {
        dataDir,
        instance: () =>
          serviceProcess({
            DATA_DIR: dataDir,
            VIES_BASE_URL: started(vies).baseUrl,
            STORE_KEY_PREFIX: `${name}:${dataDir}:`,
            BATCH_POLL_MS: "50",
            BATCH_LEASE_SECONDS: "2",
            WEBHOOK_ALLOW_HTTP: "true",
            WEBHOOK_ALLOW_PRIVATE: "true",
            WEBHOOK_BACKOFF_BASE_MS: "200",
            METRICS_TOKEN,
            ...settings,
            ...(deployment.postgres && { DATABASE_URL: process.env.DATABASE_URL ?? "" }),
          }),
        /** A pro key whose quota and rate never stop a test: on Postgres written there, else issued by the running service. */
        async newKey(): Promise<{ keyId: string; secret: string }> {
          if (deployment.postgres) {
            const [key] = await createKeys(process.env.DATABASE_URL ?? "", 1);
            if (!key) throw new Error("no key was created");
            postgresKeys.push(key.keyId);
            return key;
          }
          const created = await fetch("http://localhost/keys", {
            method: "POST",
            unix: adminSocketPath(dataDir),
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ plan: "pro", quota: 1_000_000, rate: 1_000_000 }),
          });
          expect(created.status).toBe(201);
          const key = (await created.json()) as { api_key: string; key_id: string };
          return { keyId: key.key_id, secret: key.api_key };
        },
      };
    },
  };
}

/** The sum of the series of counter `name` that `service` reports, of those whose labels include `labels`. */
export async function counterTotal(service: ServiceProcess, name: string, labels = ""): Promise<number> {
  const response = await fetch(`${service.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const text = await response.text();
  return [...text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\d+)$`, "gm"))]
    .filter((match) => match[1]?.includes(labels))
    .reduce((sum, match) => sum + Number(match[2]), 0);
}
