import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { adminCommand } from "../support/admin-socket.ts";
import { type Send, sendTo } from "../support/batches.ts";
import { describeEmbedded } from "../support/database.ts";
import { type ServiceProcess, sandbox, serviceProcess, stopAllServices } from "../support/service.ts";
import { danishNumbers } from "../support/vat-numbers.ts";

setDefaultTimeout(300_000);

/**
 * 100,000 monitors on the embedded default, with the checker working through them all the
 * while: the service's memory is bounded by what it works on at once, never by how many
 * numbers are watched — created 10,000 a request, listed 1,000 a page, checked a claim at a
 * time. The bound asserted: from 10,000 monitors to 100,000, resident memory grows by less
 * than MAX_GROWTH_MIB (PGlite's pages of the bigger tables and indexes), and the service
 * answers /health throughout. What the checker's rounds take is `bench/monitors.ts`'s.
 */

const TOTAL = 100_000;
const PER_REQUEST = 10_000;
const MAX_GROWTH_MIB = 256;

const box = sandbox();
let vies: ViesFake;
let service: ServiceProcess;

describeEmbedded("100,000 monitors on the embedded default", () => {
  afterAll(async () => {
    await stopAllServices();
    await vies?.stop();
    await box.cleanup();
  });

  test(`${TOTAL.toLocaleString("en")} monitors, embedded: memory bounded by the work at once, not by the numbers watched`, async () => {
    vies = await startViesFake();
    vies.setLatency(20);
    const dataDir = box.tempDir();
    service = serviceProcess({ DATA_DIR: dataDir, VIES_BASE_URL: vies.baseUrl, LOG_LEVEL: "warn" });
    await service.start();
    const key = await adminCommand<{ api_key: string }>(dataDir, "POST", "/keys", {
      plan: "pro",
      quota: 1_000_000_000,
      rate: 1_000_000_000,
    });
    const send: Send = sendTo(service, key.api_key);
    const numbers = danishNumbers(TOTAL);
    const rss: number[] = [];
    const mib = () => Math.round((service.rssKb() ?? 0) / 1024);

    for (let start = 0; start < TOTAL; start += PER_REQUEST) {
      const response = await send("POST", "/monitors", {
        body: JSON.stringify({ items: numbers.slice(start, start + PER_REQUEST).map((vat) => ({ vat })) }),
        headers: { "content-type": "application/json" },
      });
      await response.arrayBuffer();
      expect(response.status).toBe(201);
      rss.push(mib());
    }

    // Every monitor, a page at a time, while the checker works.
    let listed = 0;
    let cursor: string | null = "";
    while (cursor !== null) {
      const response = await send("GET", `/monitors?limit=1000${cursor ? `&cursor=${cursor}` : ""}`);
      const page = (await response.json()) as { monitors: unknown[]; next_cursor: string | null };
      listed += page.monitors.length;
      cursor = page.next_cursor;
    }
    rss.push(mib());
    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    const calls = vies.calls.total;
    console.log(
      `RSS after each 10,000 monitors: ${rss.slice(0, -1).join(", ")} MiB; after listing ${listed}: ${rss.at(-1)} MiB; ${calls} checks asked of VIES meanwhile`,
    );
    expect(listed).toBe(TOTAL);
    expect(calls).toBeGreaterThan(0);
    expect(Math.max(...rss) - (rss[0] ?? 0)).toBeLessThan(MAX_GROWTH_MIB);
    expect(service.errors).toEqual([]);
  });
});
