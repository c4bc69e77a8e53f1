import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { IDEMPOTENCY_LEASE_MS } from "../../src/services.ts";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import {
  httpUsage,
  IBAN,
  type ServiceProcess,
  sandbox,
  serviceProcess,
  stopAllServices,
} from "../support/service.ts";

setDefaultTimeout(90_000);

/**
 * `Idempotency-Key` across process boundaries, with the service as real processes: an answer
 * kept survives a restart; a request killed while it held its key blocks it only until its
 * lease ends (about 10 s), then a repeat runs, once; and two instances on one Postgres given
 * one key at once run it once. Embedded always; Postgres and Redis when DATABASE_URL and
 * REDIS_URL are set.
 */

const VAT = "IE6388047V";

type Answer = { status: number; headers: Headers; text: string };

async function send(url: string, apiKey: string, idempotencyKey: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${url}/validate`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Sends until the answer is not 409, waiting its Retry-After, as `retrySafely` does. */
async function untilAnswered(
  url: () => string,
  apiKey: string,
  idempotencyKey: string,
  body: unknown,
): Promise<Answer & { conflicts: number }> {
  for (let conflicts = 0; ; conflicts++) {
    const answer = await send(url(), apiKey, idempotencyKey, body);
    if (answer.status !== 409) return { ...answer, conflicts };
    expect(answer.headers.get("retry-after")).toBe("1");
    await Bun.sleep(1000);
  }
}

const deployments = [
  { name: "embedded", enabled: true },
  { name: "Postgres and Redis", enabled: Boolean(process.env.DATABASE_URL && process.env.REDIS_URL) },
];

for (const deployment of deployments) {
  describe.if(deployment.enabled)(`Idempotency-Key across processes, ${deployment.name}`, () => {
    const box = sandbox();
    let vies: ViesFake;
    let settings: Record<string, string>;
    const instances: ServiceProcess[] = [];

    beforeAll(async () => {
      vies = await startViesFake();
      settings = {
        DATA_DIR: box.tempDir(),
        VIES_BASE_URL: vies.baseUrl,
        ...(deployment.name !== "embedded" && {
          DATABASE_URL: process.env.DATABASE_URL ?? "",
          REDIS_URL: process.env.REDIS_URL ?? "",
          STORE_KEY_PREFIX: `test:idempotency:${crypto.randomUUID()}:`,
        }),
      };
      instances.push(serviceProcess(settings));
      // A second instance on the same database; the embedded database has one owner only.
      if (deployment.name !== "embedded") instances.push(serviceProcess(settings));
      await Promise.all(instances.map((instance) => instance.start()));
    });
    afterAll(async () => {
      await stopAllServices();
      await vies?.stop();
      await box.cleanup();
    });

    const first = () => instances[0] as ServiceProcess;
    const createKey = async () => (await box.createKey(["--plan", "pro"], first().env)).api_key;

    test("the kept answer survives a restart: the repeat gets it, billed once", async () => {
      const apiKey = await createKey();
      const idem = crypto.randomUUID();
      const answered = await send(first().url, apiKey, idem, { iban: IBAN });
      expect(answered.status).toBe(200);
      await first().crash();
      await first().start();
      const again = await send(first().url, apiKey, idem, { iban: IBAN });
      expect(again.status).toBe(200);
      expect(again.text).toBe(answered.text);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect((await httpUsage(first(), apiKey)).body).toMatchObject({ used: 1, requests_this_month: 1 });
    });

    test("a request killed while it held its key: 409 until its lease ends, then the repeat runs once", async () => {
      const apiKey = await createKey();
      const idem = crypto.randomUUID();
      vies.setLatency(5000);
      const sentAt = performance.now();
      const cut = send(first().url, apiKey, idem, { vat: VAT }).catch(() => null);
      await Bun.sleep(500);
      await first().crash();
      expect(await cut).toBeNull();
      vies.setLatency(0);
      await first().start();
      const restartedAt = performance.now();
      const answered = await untilAnswered(() => first().url, apiKey, idem, { vat: VAT });
      const answeredAt = performance.now();
      expect(answered.status).toBe(200);
      expect(answered.headers.get("idempotent-replayed")).toBeNull();
      // Claimed after it was sent, the key was held for the lease (10 s; the kill came before the
      // first renewal): nobody ran it before then, and the first repeat after it did, within the
      // 1 s a repeat waits and the time a request takes.
      const leaseEnd = sentAt + IDEMPOTENCY_LEASE_MS;
      expect(answeredAt).toBeGreaterThan(leaseEnd);
      expect(answeredAt - Math.max(leaseEnd, restartedAt)).toBeLessThan(2500);
      if (restartedAt < leaseEnd) expect(answered.conflicts).toBeGreaterThan(0);
      const again = await send(first().url, apiKey, idem, { vat: VAT });
      expect(again.text).toBe(answered.text);
      // The killed request was never settled: its reservation lapsed unbilled.
      expect((await httpUsage(first(), apiKey)).body).toMatchObject({ used: 1 });
    });

    test("50 requests with one key at once, spread over the instances: one runs, all get its answer", async () => {
      const apiKey = await createKey();
      const idem = crypto.randomUUID();
      vies.setLatency(300);
      try {
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, index) =>
            untilAnswered(() => (instances[index % instances.length] as ServiceProcess).url, apiKey, idem, {
              vat: "LU20260743",
              iban: IBAN,
            }),
          ),
        );
        expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
        const ran = answers.filter((answer) => answer.headers.get("idempotent-replayed") === null);
        expect(ran).toHaveLength(1);
        expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
        expect((await httpUsage(first(), apiKey)).body).toMatchObject({ used: 1, requests_this_month: 1 });
        expect(vies.calls.byCountry.LU).toBe(1);
      } finally {
        vies.setLatency(0);
      }
    });

    test("nothing was logged as an error", () => {
      for (const instance of instances) expect(instance.errors).toEqual([]);
    });
  });
}
