import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Usage } from "../../src/http/schemas.ts";
import {
  awayFromMinuteEdge,
  IBAN,
  type ServiceProcess,
  sandbox,
  serviceProcess,
  stopAllServices,
} from "../support/service.ts";

setDefaultTimeout(60_000);

const KEY_CACHE_TTL_MS = 1000;
/** What a revocation may take beyond KEY_CACHE_TTL_MS: a key lookup in flight when it committed. */
const LOOKUP_MARGIN_MS = 250;

type Outcome = { instance: number; status: number; code: string | null; sentAt: number };

/**
 * Two service processes on the same Postgres and Redis, driven together: the monthly quota
 * is exact across them, the per-minute limit is one shared window, and a key revoked with
 * the command line is refused by both within KEY_CACHE_TTL_MS. Runs where CI's second run
 * does, with DATABASE_URL and REDIS_URL set.
 */
describe.if(Boolean(process.env.DATABASE_URL && process.env.REDIS_URL))(
  "two instances on one Postgres and Redis",
  () => {
    const box = sandbox();
    const instances: ServiceProcess[] = [];

    beforeAll(async () => {
      const settings = {
        DATABASE_URL: process.env.DATABASE_URL ?? "",
        REDIS_URL: process.env.REDIS_URL ?? "",
        STORE_KEY_PREFIX: `test:multi:${crypto.randomUUID()}:`,
        KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS),
        DATA_DIR: box.tempDir(),
      };
      instances.push(serviceProcess(settings), serviceProcess(settings));
      await Promise.all(instances.map((instance) => instance.start()));
    });
    afterAll(async () => {
      await stopAllServices();
      await box.cleanup();
    });

    const createKey = (args: string[]) => box.createKey(["--plan", "pro", ...args], instances[0]?.env ?? {});

    async function validate(instance: number, key: string): Promise<Outcome> {
      const sentAt = performance.now();
      const response = await fetch(`${instances[instance]?.url}/validate`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ iban: IBAN }),
      });
      const body = (await response.json()) as { error?: { code: string } };
      return { instance, status: response.status, code: body.error?.code ?? null, sentAt };
    }

    /** `count` requests at once, alternating between the instances. */
    const burst = (key: string, count: number) =>
      Promise.all(Array.from({ length: count }, (_, index) => validate(index % 2, key)));

    const tally = (outcomes: Outcome[]) => {
      const counts: Record<string, number> = {};
      for (const { status, code } of outcomes) {
        const label = code ? `${status} ${code}` : String(status);
        counts[label] = (counts[label] ?? 0) + 1;
      }
      return counts;
    };

    test("the monthly quota is exact: 200 concurrent billable requests on a quota of 50", async () => {
      const key = await createKey(["--quota", "50", "--rate", "100000"]);
      const outcomes = await burst(key.api_key, 200);
      expect(tally(outcomes)).toEqual({ "200": 50, "429 quota_exceeded": 150 });
      // Both instances took part in the race.
      for (const instance of [0, 1]) {
        expect(outcomes.filter((outcome) => outcome.instance === instance).length).toBe(100);
      }
      const stdout = await box.keysOk(["usage", key.key_id], instances[0]?.env ?? {});
      expect(JSON.parse(stdout) as Usage).toMatchObject({
        key_id: key.key_id,
        used: 50,
        remaining: 0,
        requests_this_month: 200,
      });
    });

    test("the per-minute limit is one window: 10 a minute across both instances", async () => {
      const key = await createKey(["--rate", "10"]);
      // The burst must fall in one UTC minute: windows are aligned to it.
      await awayFromMinuteEdge(5000);
      const outcomes = await burst(key.api_key, 30);
      expect(tally(outcomes)).toEqual({ "200": 10, "429 rate_limited": 20 });
      const more = await Promise.all([validate(0, key.api_key), validate(1, key.api_key)]);
      expect(tally(more)).toEqual({ "429 rate_limited": 2 });
    });

    test(`a key revoked with the command line is refused by both within KEY_CACHE_TTL_MS (${KEY_CACHE_TTL_MS} ms)`, async () => {
      const key = await createKey([]);
      // Both instances have the key cached as valid.
      expect(tally(await burst(key.api_key, 4))).toEqual({ "200": 4 });

      const outcomes: Outcome[] = [];
      let polling = true;
      const poll = async (instance: number) => {
        while (polling) {
          outcomes.push(await validate(instance, key.api_key));
          await Bun.sleep(20);
        }
      };
      const pollers = [poll(0), poll(1)];
      const exit = await box.keys(["revoke", key.key_id], instances[0]?.env ?? {});
      // The revocation is committed before the command exits.
      const revokedBy = performance.now();
      await Bun.sleep(KEY_CACHE_TTL_MS + LOOKUP_MARGIN_MS + 1000);
      polling = false;
      await Promise.all(pollers);
      expect(exit).toMatchObject({ code: 0, stderr: "" });

      expect(new Set(outcomes.map((outcome) => outcome.status))).toEqual(new Set([200, 403]));
      for (const instance of [0, 1]) {
        const mine = outcomes.filter((outcome) => outcome.instance === instance);
        const firstRefusal = mine.findIndex((outcome) => outcome.status === 403);
        expect(firstRefusal).toBeGreaterThanOrEqual(0);
        // Once refused, refused for good.
        expect(mine.slice(firstRefusal).every((outcome) => outcome.status === 403)).toBe(true);
        const lastAccepted = mine.slice(0, firstRefusal).at(-1);
        const lag = (lastAccepted?.sentAt ?? revokedBy) - revokedBy;
        console.log(
          `instance ${instance}: last accepted ${Math.round(lag)} ms after the revoke command exited`,
        );
        expect(lag).toBeLessThanOrEqual(KEY_CACHE_TTL_MS + LOOKUP_MARGIN_MS);
        expect(mine[firstRefusal]?.code).toBe("forbidden");
      }
    });
  },
);
