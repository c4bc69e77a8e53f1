/**
 * What every fault test stands on: a private Postgres and Redis (so they can be stopped),
 * the VIES fake over HTTP, the service as a real process wired to all three, and keys with
 * limits high enough that only the fault under test shapes the answers.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_VIES_REGISTRY, startViesFake, type ViesFake } from "../fakes/vies.ts";
import { type Billing, billingOf, createKeys } from "./billing-rows.ts";
import {
  startThrowawayPostgres,
  startThrowawayRedis,
  type ThrowawayPostgres,
  type ThrowawayRedis,
} from "./processes.ts";
import { type ServiceProcess, serviceProcess, stopAllServices } from "./service.ts";
import {
  type Answer,
  billableAnswers,
  billingProblems,
  startTraffic,
  type Traffic,
  type TrafficOptions,
} from "./traffic.ts";

/** Numbers the VIES fake knows as registered: after their first (billed) check they are cached. */
export const CACHED_VAT = Object.keys(DEFAULT_VIES_REGISTRY);

export type FaultRig = {
  postgres: ThrowawayPostgres;
  redis: ThrowawayRedis;
  vies: ViesFake;
  service: ServiceProcess;
  /** API keys with limits too high to matter, and their ids. */
  secrets: string[];
  keyIds: string[];
  /** The billing rows of this rig's keys. */
  billing(): ReturnType<typeof billingOf>;
  /** GET /ready, summed up: `200 database=ok cache=ok`, `503 service_unavailable`. */
  ready(): Promise<string>;
  /** Sustained traffic at the service with the rig's keys, CACHED_VAT as its cached numbers. */
  traffic(options: Omit<TrafficOptions, "url" | "keys" | "cachedVat">): Traffic;
  close(): Promise<void>;
};

/**
 * Starts the rig; `settings` are added to the service's environment. Always `close()` it
 * (in afterAll): it stops every process and removes every directory, also after a failure.
 */
export async function startFaultRig(settings: Record<string, string> = {}): Promise<FaultRig> {
  const opened: { close(): Promise<void> }[] = [];
  const closeAll = async () => {
    await stopAllServices();
    for (const item of opened.reverse()) await item.close().catch(() => {});
  };
  try {
    const postgres = await startThrowawayPostgres();
    opened.push({ close: () => postgres.destroy() });
    const redis = await startThrowawayRedis();
    opened.push({ close: () => redis.destroy() });
    const vies = await startViesFake();
    opened.push({ close: () => vies.stop() });
    vies.setLatency(20);
    // Unused with DATABASE_URL (the service must not write there), but set so it never
    // falls back to ./data in the repository.
    const dataDir = mkdtempSync(join(tmpdir(), "fault-rig-"));
    opened.push({ close: async () => rmSync(dataDir, { recursive: true, force: true }) });
    const service = serviceProcess({
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      STORE_KEY_PREFIX: `fault:${crypto.randomUUID()}:`,
      VIES_BASE_URL: vies.baseUrl,
      // No test here checks a Swiss or Norwegian number: a closed port, so none could reach out.
      CH_UID_BASE_URL: "http://127.0.0.1:9",
      NO_BRREG_BASE_URL: "http://127.0.0.1:9",
      DATA_DIR: dataDir,
      KEY_CACHE_TTL_MS: "1000",
      VAT_DEADLINE_MS: "3000",
      VIES_TIMEOUT_MS: "1500",
      // A killed process's VIES slots stay taken until their leases lapse (10 s by default), and
      // these tests kill and restart one instance every 2 s: with leases of 0.6 s, renewed every
      // 0.2 s, they are back before it is. What a lapsing lease does is test/multi/shared-slots'.
      VIES_SLOT_LEASE_MS: "600",
      LOG_LEVEL: "info",
      ...settings,
    });
    await service.start();
    const keys = await createKeys(postgres.url, 4);
    const keyIds = keys.map((key) => key.keyId);
    const secrets = keys.map((key) => key.secret);
    return {
      postgres,
      redis,
      vies,
      service,
      secrets,
      keyIds,
      billing: () => billingOf(postgres.sql, keyIds),
      async ready() {
        const response = await fetch(`${service.url}/ready`, { signal: AbortSignal.timeout(5000) });
        const body = (await response.json()) as {
          database?: string;
          cache?: string;
          error?: { code: string };
        };
        const state = body.error ? body.error.code : `database=${body.database} cache=${body.cache}`;
        return `${response.status} ${state}`;
      },
      traffic: (options) =>
        startTraffic({ ...options, url: service.url, keys: secrets, cachedVat: CACHED_VAT }),
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * A rig for the tests of the enclosing `describe`: started in its beforeAll, after logging
 * `seed` and how to replay it (FAULT_SEED), and closed in its afterAll. Call it inside the
 * `describe`, so that a skipped one starts nothing; the returned function gives the rig.
 */
export function faultRigForDescribe(seed: number, settings: Record<string, string> = {}): () => FaultRig {
  let rig: FaultRig | undefined;
  beforeAll(async () => {
    console.log(`fault seed: ${seed} (replay with FAULT_SEED=${seed})`);
    rig = await startFaultRig(settings);
  });
  afterAll(() => rig?.close());
  return () => {
    if (!rig) throw new Error("the fault rig has not started");
    return rig;
  };
}

/**
 * The billing of a run in which no request was cut off: the units in the database are exactly
 * the billable answers received, each its own, and none is left reserved.
 */
export function expectBilledAsAnswered(answers: Answer[], billing: Billing): void {
  expect(billing.used).toBe(billableAnswers(answers));
  expect(billingProblems(answers, billing.used)).toEqual([]);
  expect(billing).toMatchObject({ reserved: 0, reservations: 0 });
}
