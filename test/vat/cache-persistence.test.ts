import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ValidateResponse } from "../../src/http/schemas.ts";
import { adminSocketPath } from "../../src/kernel/admin-socket.ts";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { createKeys } from "../support/billing-rows.ts";
import { type ServiceProcess, serviceProcess, stopAllServices } from "../support/service.ts";

setDefaultTimeout(60_000);

const REGISTERED = "NL854265259B01";
const NOT_REGISTERED = "DE122119035";

/**
 * The VAT cache without Redis lives in the database: the embedded default (PGlite in
 * DATA_DIR) and Postgres without a Redis setting. What a service learned survives its
 * restart (here a kill -9): a number inside its fresh period is a cache hit, not billed; one
 * past it is served from its last-known-good copy, with its original `checked_at`, when VIES
 * is down. Instances on one Postgres share it.
 */
const deployments = [
  { name: "embedded (PGlite in DATA_DIR)", postgres: false },
  ...(process.env.DATABASE_URL ? [{ name: "Postgres without Redis", postgres: true }] : []),
];

let vies: ViesFake;
const directories: string[] = [];
beforeAll(async () => {
  vies = await startViesFake();
  vies.addNumber("DE", "122119035", { valid: false });
});
afterAll(async () => {
  await stopAllServices();
  await vies.stop();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/**
 * The calls VIES received for one number. On a shared Postgres, the instances' batch workers
 * may also pick up work other test files left queued, and ask this fake about other numbers.
 */
const callsFor = (vat: string) =>
  vies.calls.log.filter((call) => `${call.countryCode}${call.vatNumber}` === vat).length;

async function validate(service: ServiceProcess, key: string, vat: string) {
  const response = await fetch(`${service.url}/validate`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ vat }),
  });
  return { status: response.status, body: (await response.json()) as ValidateResponse };
}

for (const deployment of deployments) {
  describe(`the VAT cache survives a restart: ${deployment.name}`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cache-persistence-"));
    directories.push(dataDir);
    // Services on one database, as restarts (or other instances) of one deployment.
    const instance = (settings: Record<string, string> = {}) =>
      serviceProcess({
        DATA_DIR: dataDir,
        VIES_BASE_URL: vies.baseUrl,
        STORE_KEY_PREFIX: `persist:${dataDir}:`,
        ...(deployment.postgres && { DATABASE_URL: process.env.DATABASE_URL ?? "" }),
        ...settings,
      });
    let key = "";

    test("fresh answers are cache hits after a kill -9, past their freshness they are last-known-good in an outage", async () => {
      vies.reset();
      vies.addNumber("DE", "122119035", { valid: false });
      // Written with a one-second freshness, so that it is past it after the restart.
      const short = instance({ VAT_CACHE_TTL_SECONDS: "1" });
      await short.start();
      if (deployment.postgres) {
        key = (await createKeys(process.env.DATABASE_URL ?? "", 1))[0]?.secret ?? "";
      } else {
        const created = await fetch("http://localhost/keys", {
          method: "POST",
          unix: adminSocketPath(dataDir),
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ plan: "pro" }),
        });
        key = ((await created.json()) as { api_key: string }).api_key;
      }
      const stale = await validate(short, key, REGISTERED);
      expect(stale.body).toMatchObject({ billable: true, vat: { valid: true, cached: false } });
      await short.crash();

      const normal = instance();
      await normal.start();
      const fresh = await validate(normal, key, NOT_REGISTERED);
      expect(fresh.body).toMatchObject({ billable: true, vat: { valid: false, cached: false } });
      await normal.crash();

      const restarted = instance();
      await restarted.start();
      const callsBefore = callsFor(NOT_REGISTERED);
      const hit = await validate(restarted, key, NOT_REGISTERED);
      expect(hit.status).toBe(200);
      expect(hit.body).toMatchObject({
        billable: false,
        vat: { valid: false, cached: true, stale: false, checked_at: fresh.body.vat?.checked_at },
      });
      expect(callsFor(NOT_REGISTERED)).toBe(callsBefore);

      // Past the one-second freshness of the first answer, however fast the restarts were.
      await Bun.sleep(Math.max(0, Date.parse(stale.body.vat?.checked_at ?? "") + 1100 - Date.now()));
      vies.setBehaviour("*", { kind: "fault", fault: "MS_UNAVAILABLE" });
      const outage = await validate(restarted, key, REGISTERED);
      expect(outage.status).toBe(200);
      expect(outage.body).toMatchObject({
        billable: false,
        vat: {
          valid: true,
          cached: true,
          stale: true,
          checked_at: stale.body.vat?.checked_at,
          warning: { code: "member_state_unavailable" },
        },
      });
      await restarted.stop();
    });

    if (deployment.postgres) {
      test("two instances on one Postgres without Redis share the cache", async () => {
        vies.reset();
        const [a, b] = [instance(), instance()];
        await Promise.all([a.start(), b.start()]);
        const number = "NL004495445B01";
        vies.addNumber("NL", "004495445B01", { valid: true, name: "SHARED" });
        const first = await validate(a, key, number);
        expect(first.body).toMatchObject({ billable: true, vat: { cached: false } });
        const second = await validate(b, key, number);
        expect(second.body).toMatchObject({
          billable: false,
          vat: { cached: true, stale: false, checked_at: first.body.vat?.checked_at, name: "SHARED" },
        });
        expect(callsFor(number)).toBe(1);
        await Promise.all([a.stop(), b.stop()]);
      });
    }
  });
}
