import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync } from "node:fs";
import type { KeySummary } from "../../src/accounts/admin.ts";
import type { Usage } from "../../src/http/schemas.ts";
import {
  httpUsage,
  KEY_CACHE_TTL_MS,
  type RunningServer,
  sandbox,
  serviceEnv,
  validateIban,
} from "../support/service.ts";
import { expectLimitsEnforced, expectUnknownKeyRefused, expectWebhookSecretShown } from "./keys-checks.ts";

// Real processes take longer than bun's 5 s default.
setDefaultTimeout(30_000);

const box = sandbox();
afterAll(() => box.cleanup());

// CI's second run: the server and the commands share the Postgres at DATABASE_URL (and the
// Redis at REDIS_URL, under a prefix of this run's own), and the commands talk to Postgres
// directly. The database is shared with other suites, so only this file's keys are looked at.
describe.if(Boolean(process.env.DATABASE_URL))("keys on Postgres, with the server running", () => {
  let env: Record<string, string>;
  let server: RunningServer;

  const create = (args: string[]) => box.createKey(args, env);

  async function listed(keyId: string): Promise<KeySummary | undefined> {
    const stdout = await box.keysOk(["list"], env);
    expect(stdout).not.toContain("vsk_");
    return (JSON.parse(stdout) as KeySummary[]).find((key) => key.key_id === keyId);
  }

  beforeAll(async () => {
    env = serviceEnv({
      DATABASE_URL: process.env.DATABASE_URL ?? "",
      ...(process.env.REDIS_URL && { REDIS_URL: process.env.REDIS_URL }),
      STORE_KEY_PREFIX: `test:cli:${crypto.randomUUID()}:`,
      DATA_DIR: box.tempDir(),
    });
    server = await box.startServer(env);
  });

  test("the server uses Postgres and leaves DATA_DIR alone", () => {
    expect(server.listening).toMatchObject({
      database: "postgres",
      store: process.env.REDIS_URL ? "redis" : "memory",
      admin_socket: null,
    });
    expect(readdirSync(env.DATA_DIR ?? "")).toEqual([]);
  });

  test("create prints exactly one JSON object, and the key works at once", async () => {
    const key = await create(["--plan", "pro", "--name", "postgres shop"]);
    expect(Object.keys(key).sort()).toEqual(["api_key", "key_id", "plan"]);
    expect(key.key_id).toMatch(/^key_[0-9a-z]{16}$/);
    expect(key.api_key).toMatch(/^vsk_[0-9A-Za-z]{49}$/);
    const answer = await validateIban(server, key.api_key);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-quota-limit")).toBe("10000");
    expect(await listed(key.key_id)).toMatchObject({
      kind: "direct",
      name: "postgres shop",
      plan: "pro",
      monthly_quota: 10000,
      rate_per_minute: 180,
      revoked_at: null,
    });
    // Nothing on disk: with DATABASE_URL the command needs no socket and no data directory.
    expect(readdirSync(env.DATA_DIR ?? "")).toEqual([]);
  });

  test("--rate and --quota override the plan: listed, and enforced by the server", async () => {
    const limited = await create(["--plan", "basic", "--rate", "2"]);
    const small = await create(["--plan", "free", "--quota", "1"]);
    expect(await listed(limited.key_id)).toMatchObject({ monthly_quota: 2000, rate_per_minute: 2 });
    expect(await listed(small.key_id)).toMatchObject({ monthly_quota: 1, rate_per_minute: 10 });
    await expectLimitsEnforced(server, limited, small);
  });

  test("usage reports what was billed over HTTP, as GET /usage does", async () => {
    const key = await create(["--plan", "basic"]);
    for (let i = 0; i < 2; i++) expect((await validateIban(server, key.api_key)).status).toBe(200);
    const report = JSON.parse(await box.keysOk(["usage", key.key_id], env)) as Usage;
    expect(report).toMatchObject({
      key_id: key.key_id,
      plan: "basic",
      used: 2,
      remaining: 1998,
      requests_this_month: 2,
    });
    expect((await httpUsage(server, key.api_key)).body).toEqual(report);
  });

  test(`revoke: the server refuses the key with 403 within KEY_CACHE_TTL_MS (${KEY_CACHE_TTL_MS} ms)`, async () => {
    const key = await create(["--plan", "free"]);
    expect((await validateIban(server, key.api_key)).status).toBe(200);
    expect((JSON.parse(await box.keysOk(["revoke", key.key_id], env)) as KeySummary).key_id).toBe(key.key_id);

    await Bun.sleep(KEY_CACHE_TTL_MS);
    const refused = await validateIban(server, key.api_key);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe("forbidden");
    expect((await listed(key.key_id))?.revoked_at).toEqual(expect.any(String));
  });

  test("revoke and usage of a key that does not exist fail, with nothing on stdout", () =>
    expectUnknownKeyRefused(box, env));

  test("webhook-secret shows a key's signing secret, and --rotate replaces it", async () =>
    expectWebhookSecretShown(box, env, (await box.createKey(["--plan", "pro"], env)).key_id));

  test("SIGTERM stops the server cleanly", async () => {
    expect(await server.stop()).toBe(0);
  });
});
