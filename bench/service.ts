/**
 * The service under load, as the HTTP benchmarks start it: the embedded default (PGlite and
 * the in-process cache) and, when they can be reached, real Postgres and Redis; each with
 * 1,000 keys whose limits are high enough that the load measures the work, not the 429 path.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { KeyStore } from "../src/accounts/key-store.ts";
import { connectPostgres } from "../src/kernel/db.ts";
import { type RunningServer, startServer } from "./support.ts";

export const KEY_COUNT = 1000;
const UNLIMITED = { plan: "pro", name: "bench", quota: 1_000_000_000, rate: 1_000_000_000 } as const;
const bun = process.execPath;
const profileDir = process.env.BENCH_PROFILE_DIR;
/** The service's log level: BENCH_LOG_LEVEL, or info (a line per request, as in production), written to /dev/null. */
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? "info";
/** The service's command line; with BENCH_PROFILE_DIR, each service process writes a Markdown CPU profile there on exit. */
const SERVICE = [
  bun,
  ...(profileDir ? ["--cpu-prof-md", `--cpu-prof-dir=${profileDir}`] : []),
  "src/index.ts",
];

/** A running service with its keys. */
export type Deployment = { name: string; port: number; pid: number; keys: string[] };

/** The Postgres and Redis of the second configuration: DATABASE_URL and REDIS_URL, or the local servers CI uses. */
export const POSTGRES_REDIS = {
  databaseUrl: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
};

const DEFAULT_PORTS: Record<string, number> = { "postgres:": 5432, "postgresql:": 5432, "redis:": 6379 };

/** Whether something accepts TCP connections at the host and port of `url`. */
export async function reachable(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port, protocol } = new URL(url);
  const connecting = Bun.connect({
    hostname,
    port: Number(port) || (DEFAULT_PORTS[protocol] ?? 0),
    socket: { data() {} },
  });
  const socket = await Promise.race([connecting, Bun.sleep(timeoutMs).then(() => null)]).catch(() => null);
  socket?.end();
  return socket !== null;
}

/** The reference point: a bare Elysia POST with a body schema and no work behind it. */
export function startBare(): Promise<RunningServer> {
  return startServer([bun, "bench/bare-server.ts"], {}, "/validate");
}

async function keysThroughAdminSocket(socket: string): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < KEY_COUNT; i++) {
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
  for (let i = 0; i < KEY_COUNT; i++) {
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

async function runEmbedded(env: Record<string, string>, work: (deployment: Deployment) => Promise<void>) {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-embedded-"));
  try {
    const server = await startServer(SERVICE, {
      ...env,
      DATA_DIR: dataDir,
      LOG_LEVEL,
    });
    try {
      const keys = await keysThroughAdminSocket(join(dataDir, "admin.sock"));
      await work({ name: "embedded (PGlite)", port: server.port, pid: server.pid, keys });
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function runPostgresRedis(
  env: Record<string, string>,
  work: (deployment: Deployment) => Promise<void>,
) {
  const { databaseUrl, redisUrl } = POSTGRES_REDIS;
  if (!(await reachable(databaseUrl)) || !(await reachable(redisUrl))) {
    process.stderr.write(`skipping Postgres + Redis: ${databaseUrl} or ${redisUrl} cannot be reached\n`);
    return;
  }
  const server = await startServer(SERVICE, {
    ...env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    // A fresh prefix per run, so that no cache entry or rate window of an earlier run is found.
    STORE_KEY_PREFIX: `bench:${Date.now()}:`,
    LOG_LEVEL,
  });
  try {
    const keys = await keysInPostgres(databaseUrl);
    await work({ name: "Postgres + Redis", port: server.port, pid: server.pid, keys });
  } finally {
    await server.stop();
    await forgetWork(databaseUrl);
  }
}

/**
 * Deletes the monitors and batches of the benchmarks' keys: a monitor stays due forever, and
 * left in a shared database, every later instance on it (the tests' too) would check it; a
 * batch left unfinished would be worked on by the next.
 */
async function forgetWork(url: string): Promise<void> {
  const database = connectPostgres(url, { max: 1 });
  const benchKeys = sql`(SELECT id FROM api_keys WHERE name = ${UNLIMITED.name})`;
  try {
    await database.rows(sql`DELETE FROM monitors WHERE key_id IN ${benchKeys}`);
    await database.rows(sql`DELETE FROM batches WHERE key_id IN ${benchKeys}`);
    await database.rows(sql`DELETE FROM work_due WHERE key_id IN ${benchKeys}`);
  } finally {
    await database.close();
  }
}

/**
 * Starts the service in each configuration in turn, with `env` added to its environment,
 * runs `work` against it and stops it. Postgres + Redis is skipped, with a note, when either
 * cannot be reached.
 */
export async function forEachDeployment(
  env: Record<string, string>,
  work: (deployment: Deployment) => Promise<void>,
): Promise<void> {
  await runEmbedded(env, work);
  await runPostgresRedis(env, work);
}
