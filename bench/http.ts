/**
 * HTTP load: authenticated, billable POST /validate (IBAN) spread over 1,000 keys, against
 * the embedded default and against real Postgres + Redis, beside a bare Elysia POST in the
 * same run. Run with `npm run bench:http`; set DATABASE_URL and REDIS_URL for the second
 * configuration (defaults: the local servers CI uses).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KeyStore } from "../src/accounts/key-store.ts";
import { connectPostgres } from "../src/db.ts";
import examples from "../test/fixtures/iban-examples.json" with { type: "json" };
import { findWrk, type RunningServer, runWrk, startServer, table, type WrkResult } from "./support.ts";

const KEYS = 1000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 3;
const bun = process.execPath;
const bodies = Object.values(examples as Record<string, string>).map((iban) => JSON.stringify({ iban }));
// Limits high enough that the load measures the meter, not the 429 path.
const UNLIMITED = { plan: "pro", name: "bench", quota: 1_000_000_000, rate: 1_000_000_000 } as const;

async function keysThroughAdminSocket(socket: string): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const response = await fetch("http://localhost/keys", {
      method: "POST",
      unix: socket,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(UNLIMITED),
    });
    keys.push(((await response.json()) as { api_key: string }).api_key);
  }
  return keys;
}

async function keysInPostgres(url: string): Promise<string[]> {
  const database = connectPostgres(url, { max: 4 });
  const store = new KeyStore(database);
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const { secret } = await store.create({
      planId: UNLIMITED.plan,
      name: UNLIMITED.name,
      monthlyQuota: UNLIMITED.quota,
      ratePerMinute: UNLIMITED.rate,
    });
    keys.push(secret);
  }
  await database.close();
  return keys;
}

async function measure(name: string, server: RunningServer, keys: string[], wrk: string): Promise<WrkResult> {
  const url = `http://127.0.0.1:${server.port}/validate`;
  runWrk(wrk, url, { keys, bodies, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
  const result = runWrk(wrk, url, { keys, bodies, connections: CONNECTIONS, seconds: SECONDS });
  process.stderr.write(`${name}: ${Math.round(result.rps)} req/s, p99 ${result.p99ms.toFixed(2)} ms\n`);
  return result;
}

const wrk = findWrk();
const results: [string, WrkResult][] = [];

const bare = await startServer([bun, "bench/bare-server.ts"], {}, "/validate");
results.push(["bare Elysia POST (body schema, no work)", await measure("bare", bare, [], wrk)]);
await bare.stop();

const dataDir = mkdtempSync(join(tmpdir(), "bench-embedded-"));
try {
  const embedded = await startServer([bun, "src/index.ts"], { DATA_DIR: dataDir, LOG_LEVEL: "error" });
  const keys = await keysThroughAdminSocket(join(dataDir, "admin.sock"));
  results.push(["validate, embedded (PGlite + in-process)", await measure("embedded", embedded, keys, wrk)]);
  await embedded.stop();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const real = await startServer([bun, "src/index.ts"], {
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  STORE_KEY_PREFIX: `bench:${Date.now()}:`,
  LOG_LEVEL: "error",
});
const keys = await keysInPostgres(databaseUrl);
results.push(["validate, Postgres + Redis", await measure("postgres", real, keys, wrk)]);
await real.stop();

const bareRps = results[0]?.[1].rps ?? 1;
process.stdout.write(
  `\nHTTP benchmark: ${CONNECTIONS} connections, ${SECONDS} s, wrk, ${KEYS} keys, billable IBAN validations\n\n`,
);
process.stdout.write(
  `${table(
    ["server", "requests/s", "p50 ms", "p99 ms", "vs bare", "non-2xx", "errors"],
    results.map(([name, r]) => [
      name,
      Math.round(r.rps).toLocaleString("en"),
      r.p50ms.toFixed(2),
      r.p99ms.toFixed(2),
      `${((r.rps / bareRps) * 100).toFixed(0)} %`,
      r.non2xx,
      r.errors,
    ]),
  )}\n`,
);
