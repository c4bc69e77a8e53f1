import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { httpUsage, sandbox, serviceEnv } from "../support/service.ts";

setDefaultTimeout(60_000);

const box = sandbox();
let vies: ViesFake;

beforeAll(async () => {
  vies = await startViesFake();
});
afterAll(async () => {
  await box.cleanup();
  await vies.stop();
});

function validateVat(url: string, key: string, vat: string) {
  return fetch(`${url}/validate`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ vat }),
  });
}

/** A server on a data directory of its own that shuts down within `shutdownTimeoutMs`, and a key. */
async function serverWithKey(shutdownTimeoutMs: string) {
  const env = serviceEnv({
    DATA_DIR: box.tempDir(),
    VIES_BASE_URL: vies.baseUrl,
    SHUTDOWN_TIMEOUT_MS: shutdownTimeoutMs,
  });
  const server = await box.startServer(env);
  const { api_key: key } = await box.createKey(["--plan", "pro"], env);
  return { env, server, key };
}

describe("SIGTERM", () => {
  test("in-flight requests finish and are billed, the process exits 0, and a restart loses nothing", async () => {
    const { env, server, key } = await serverWithKey("10000");
    vies.setLatency({ NL: 1500 });
    const inFlight = validateVat(server.url, key, "NL854265259B01");
    await Bun.sleep(300);
    const exited = server.stop();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ billable: true, vat: { valid: true }, usage: { used: 1 } });
    expect(await exited).toBe(0);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();

    vies.setLatency(0);
    const again = await box.startServer(env);
    expect((await httpUsage(again, key)).body).toMatchObject({ used: 1, requests_this_month: 1 });
    expect(await again.stop()).toBe(0);
  });

  test("a request still running at the shutdown bound is cut off and never billed", async () => {
    const { env, server, key } = await serverWithKey("300");
    vies.setBehaviour("BE", { kind: "hang" });
    const inFlight = validateVat(server.url, key, "BE0244142664").then(
      (response) => response.status,
      () => "connection closed",
    );
    await Bun.sleep(300);
    const started = Date.now();
    expect(await server.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await inFlight).toBe("connection closed");

    vies.reset();
    const again = await box.startServer(env);
    expect((await httpUsage(again, key)).body).toMatchObject({ used: 0 });
    expect(await again.stop()).toBe(0);
  });
});
