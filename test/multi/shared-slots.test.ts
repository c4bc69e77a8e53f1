import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { type ServiceProcess, sandbox, serviceProcess, stopAllServices } from "../support/service.ts";
import { danishNumbers } from "../support/vat-numbers.ts";

setDefaultTimeout(90_000);

const CAP = 2;
const LEASE_MS = 1500;
/** Long enough that no request here runs out of time waiting for a slot. */
const DEADLINE_MS = 30_000;

const databaseUrl = process.env.DATABASE_URL ?? "";
const redisUrl = process.env.REDIS_URL ?? "";

/**
 * Two service processes on one Postgres (with Redis, and without it) against one VIES fake:
 * VIES_MAX_CONCURRENT_PER_STATE is one cap for both, not one each, and the slots a killed
 * instance held come back once their leases lapse.
 */
const deployments: { name: string; enabled: boolean; shared: Record<string, string> }[] = [
  { name: "Postgres and Redis", enabled: Boolean(databaseUrl && redisUrl), shared: { REDIS_URL: redisUrl } },
  { name: "Postgres without Redis", enabled: Boolean(databaseUrl), shared: {} },
];

for (const deployment of deployments) {
  describe.if(deployment.enabled)(
    `the cap per member state across two instances on ${deployment.name}`,
    () => {
      const box = sandbox();
      const instances: ServiceProcess[] = [];
      let vies: ViesFake;
      let key = "";
      // Fresh numbers for every request: no cache hit and no shared call stands in for a VIES call.
      const numbers = danishNumbers(100, 10_000_000 + Math.floor(Math.random() * 80_000_000));

      beforeAll(async () => {
        vies = await startViesFake();
        const settings = {
          DATABASE_URL: databaseUrl,
          ...deployment.shared,
          STORE_KEY_PREFIX: `test:slots:${crypto.randomUUID()}:`,
          DATA_DIR: box.tempDir(),
          VIES_BASE_URL: vies.baseUrl,
          VIES_MAX_CONCURRENT_PER_STATE: String(CAP),
          VIES_SLOT_LEASE_MS: String(LEASE_MS),
          VAT_DEADLINE_MS: String(DEADLINE_MS),
        };
        instances.push(serviceProcess(settings), serviceProcess(settings));
        await Promise.all(instances.map((instance) => instance.start()));
        const created = await box.createKey(
          ["--plan", "pro", "--quota", "1000000", "--rate", "100000"],
          instances[0]?.env ?? {},
        );
        key = created.api_key;
      });
      afterAll(async () => {
        await stopAllServices();
        await box.cleanup();
        await vies.stop();
      });

      async function validate(instance: number, vat: string) {
        const started = performance.now();
        const response = await fetch(`${instances[instance]?.url}/validate`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ vat }),
        });
        const body = (await response.json()) as { vat?: { error: unknown } };
        return { status: response.status, error: body.vat?.error ?? null, ms: performance.now() - started };
      }

      test(`concurrent requests of one member state on both instances: at most ${CAP} VIES calls at once`, async () => {
        vies.setLatency({ DK: 200 });
        const outcomes = await Promise.all(
          numbers.slice(0, 24).map((vat, index) => validate(index % 2, vat)),
        );
        expect(outcomes.map(({ status, error }) => ({ status, error }))).toEqual(
          outcomes.map(() => ({ status: 200, error: null })),
        );
        console.log(`most DK calls in flight: ${vies.calls.maxInFlight.DK}`);
        expect(vies.calls.maxInFlight.DK).toBe(CAP);
      });

      test("a killed instance's slots come back once their leases lapse", async () => {
        vies.setLatency(0);
        vies.setBehaviour("DK", { kind: "hang" }, { times: CAP });
        const received = vies.calls.byCountry.DK ?? 0;
        const sentAt = performance.now();
        // Both slots taken by instance 0, its calls hanging; then it dies holding them.
        const doomed = numbers.slice(50, 50 + CAP).map((vat) => validate(0, vat).catch(() => null));
        while ((vies.calls.byCountry.DK ?? 0) < received + CAP) await Bun.sleep(10);
        await instances[0]?.crash();
        await Promise.all(doomed);

        const outcome = await validate(1, numbers[60] ?? "");
        expect({ status: outcome.status, error: outcome.error }).toEqual({ status: 200, error: null });
        // Its leases were taken after `sentAt`, and lapse no sooner than LEASE_MS after that.
        const waited = performance.now() - sentAt;
        console.log(`the other instance answered ${Math.round(waited)} ms after the dead one took the slots`);
        expect(waited).toBeGreaterThanOrEqual(LEASE_MS);
      });
    },
  );
}
