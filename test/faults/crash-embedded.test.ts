import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CreatedKey } from "../../src/accounts/admin.ts";
import { adminSocketPath } from "../../src/kernel/admin-socket.ts";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { describeEmbedded } from "../support/database.ts";
import { CACHED_VAT } from "../support/fault-rig.ts";
import { seedFrom } from "../support/prng.ts";
import { type ServiceProcess, serviceProcess, stopAllServices } from "../support/service.ts";
import {
  billableAnswers,
  billingProblems,
  contractProblems,
  NETWORK_ERROR,
  startTraffic,
} from "../support/traffic.ts";

setDefaultTimeout(90_000);

const SEED = seedFrom("FAULT_SEED");
const KILLS = 3;

/**
 * kill -9 of the embedded service (PGlite in its data directory, the default deployment)
 * under sustained load, then a restart on the same directory, three times. Its meter decides
 * in memory and appends each batch to its usage log before answering, so after the
 * restarts the usage of the keys holds every answer a client received as billable, and at
 * most one unit more per request that was in flight at a kill. Needs no servers of its own,
 * so it runs in both CI runs.
 */
describeEmbedded("the embedded service through kill -9", () => {
  describe("kill -9 of the embedded service under load", () => {
    let vies: ViesFake;
    let dataDir: string;
    let service: ServiceProcess;
    const keys: CreatedKey[] = [];

    const admin = (path: string, init: RequestInit = {}) =>
      fetch(`http://localhost${path}`, { ...init, unix: adminSocketPath(dataDir) });

    beforeAll(async () => {
      console.log(`fault seed: ${SEED} (replay with FAULT_SEED=${SEED})`);
      vies = await startViesFake();
      vies.setLatency(20);
      dataDir = mkdtempSync(join(tmpdir(), "crash-embedded-"));
      service = serviceProcess({
        DATA_DIR: dataDir,
        VIES_BASE_URL: vies.baseUrl,
        KEY_CACHE_TTL_MS: "1000",
        VAT_DEADLINE_MS: "3000",
        VIES_TIMEOUT_MS: "1500",
        LOG_LEVEL: "info",
      });
      await service.start();
      for (let i = 0; i < 4; i++) {
        const response = await admin("/keys", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ plan: "pro", name: "crash", quota: 1_000_000, rate: 1_000_000 }),
        });
        keys.push((await response.json()) as CreatedKey);
      }
    });

    afterAll(async () => {
      await stopAllServices();
      await vies?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    test("billed units match the billable answers received, kill after kill", async () => {
      const traffic = startTraffic({
        url: service.url,
        keys: keys.map((key) => key.api_key),
        cachedVat: CACHED_VAT,
        loops: 8,
        seed: SEED,
        weights: { iban: 5, vat_fresh: 2, vat_cached: 2, bad: 1 },
      });
      let inFlight = 0;
      try {
        for (let kill = 0; kill < KILLS; kill++) {
          await Bun.sleep(1500);
          const killedAt = traffic.elapsed();
          await service.crash();
          await Bun.sleep(300);
          inFlight += traffic.answers.filter(
            (answer) =>
              answer.status === NETWORK_ERROR && answer.at < killedAt && answer.at + answer.ms >= killedAt,
          ).length;
          await service.start();
        }
        await Bun.sleep(1500);
      } finally {
        await traffic.stop();
      }

      let used = 0;
      for (const key of keys) {
        const usage = (await (await admin(`/keys/${key.key_id}/usage`)).json()) as { used: number };
        used += usage.used;
      }
      const received = billableAnswers(traffic.answers);
      console.log(JSON.stringify({ used, received, inFlight, answers: traffic.answers.length }));
      expect(contractProblems(traffic.answers)).toEqual([]);
      expect(received).toBeGreaterThan(100);
      // Never an answer received as billable without its unit; never more than the kills could strand.
      expect(used).toBeGreaterThanOrEqual(received);
      expect(used - received).toBeLessThanOrEqual(inFlight);
      expect(billingProblems(traffic.answers, used)).toEqual([]);
      expect(service.errors).toEqual([]);
    });
  });
});
