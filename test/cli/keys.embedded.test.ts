import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CreatedKey, KeySummary } from "../../src/accounts/admin.ts";
import type { Usage } from "../../src/http/schemas.ts";
import { describeEmbedded } from "../support/database.ts";
import {
  httpUsage,
  KEY_CACHE_TTL_MS,
  type RunningServer,
  sandbox,
  serviceEnv,
  singleJsonLine,
  validateIban,
} from "../support/service.ts";
import { expectLimitsEnforced, expectUnknownKeyRefused, expectWebhookSecretShown } from "./keys-checks.ts";

// Real processes, and a first start of embedded Postgres, take longer than bun's 5 s default.
setDefaultTimeout(30_000);

// One data directory for the whole file, used the way an operator would: keys issued while
// the server runs, then with it stopped, then the server started again on the same data.
const box = sandbox();
let dataDir: string;
let env: Record<string, string>;
let server: RunningServer;

const ownerPid = () => readFileSync(join(dataDir, "owner.pid"), "utf8").split(" ")[0];

const create = (args: string[]) => box.createKey(args, env);

async function list(): Promise<{ keys: KeySummary[]; stdout: string }> {
  const stdout = await box.keysOk(["list"], env);
  return { keys: JSON.parse(stdout) as KeySummary[], stdout };
}

async function usage(keyId: string): Promise<Usage> {
  return JSON.parse(await box.keysOk(["usage", keyId], env)) as Usage;
}

describeEmbedded("keys on the embedded default", () => {
  beforeAll(async () => {
    // Not created yet: the server makes it and initialises the embedded database in it.
    dataDir = join(box.tempDir(), "data");
    env = serviceEnv({ DATA_DIR: dataDir });
    server = await box.startServer(env);
  });
  afterAll(() => box.cleanup());

  let basic: CreatedKey;
  let offline: CreatedKey;
  let revoked: CreatedKey;
  let billedKey: CreatedKey;

  describe("with the server running, keys go through its admin socket", () => {
    test("the server holds the data directory and serves the socket to its owner only", () => {
      expect(server.listening).toMatchObject({
        database: "pglite",
        admin_socket: join(dataDir, "admin.sock"),
      });
      const socket = statSync(join(dataDir, "admin.sock"));
      expect(socket.isSocket()).toBe(true);
      expect(socket.mode & 0o777).toBe(0o600);
      expect(ownerPid()).toBe(String(server.pid));
    });

    test("create prints exactly one JSON object, and the key works at once", async () => {
      basic = await create(["--plan", "basic", "--name", "shop one"]);
      expect(Object.keys(basic).sort()).toEqual(["api_key", "key_id", "plan"]);
      expect(basic.plan).toBe("basic");
      expect(basic.key_id).toMatch(/^key_[0-9a-z]{16}$/);
      expect(basic.api_key).toMatch(/^vsk_[0-9A-Za-z]{49}$/);
      // The server still owns the directory, so the command cannot have opened the database
      // itself: the key reached the server's database through the socket.
      expect(ownerPid()).toBe(String(server.pid));
      const answer = await validateIban(server, basic.api_key);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-quota-limit")).toBe("2000");
    });

    test("every key gets its own id and secret", async () => {
      const other = await create(["--plan", "basic"]);
      expect(other.key_id).not.toBe(basic.key_id);
      expect(other.api_key).not.toBe(basic.api_key);
      // 43 base-62 characters from the CSPRNG: two secrets sharing a long run is not chance.
      expect(other.api_key.slice(4, 14)).not.toBe(basic.api_key.slice(4, 14));
    });

    test("`npm run keys -- create` works as the README says", async () => {
      const exit = await box.npmRun("keys", ["create", "--plan", "pro", "--name", "via npm"], env);
      expect(exit.code).toBe(0);
      // npm announces the script it runs on stdout; the command's own output is the last line.
      const output = exit.stdout.trimEnd().split("\n");
      expect(output.slice(0, -1).every((line) => line === "" || line.startsWith("> "))).toBe(true);
      const key = JSON.parse(output.at(-1) ?? "") as CreatedKey;
      expect(key.plan).toBe("pro");
      expect((await validateIban(server, key.api_key)).status).toBe(200);

      const silent = await box.npmRun("keys", ["create", "--plan", "free"], env, { silent: true });
      expect(silent.code).toBe(0);
      expect((singleJsonLine(silent.stdout) as CreatedKey).plan).toBe("free");
    });

    test("list shows every key with its plan and limits, and no secret", async () => {
      const { keys, stdout } = await list();
      const listed = keys.find((key) => key.key_id === basic.key_id);
      expect(listed).toEqual({
        key_id: basic.key_id,
        kind: "direct",
        name: "shop one",
        plan: "basic",
        monthly_quota: 2000,
        rate_per_minute: 60,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        revoked_at: null,
      });
      expect(keys.length).toBe(4);
      expect(stdout).not.toContain("vsk_");
      expect(stdout).not.toContain(createHash("sha256").update(basic.api_key).digest("hex"));
    });

    test("--rate and --quota override the plan: listed, and enforced by the server", async () => {
      const limited = await create(["--plan", "free", "--rate", "2"]);
      const small = await create(["--plan", "pro", "--quota", "1"]);
      const { keys } = await list();
      expect(keys.find((key) => key.key_id === limited.key_id)).toMatchObject({
        monthly_quota: 100,
        rate_per_minute: 2,
      });
      expect(keys.find((key) => key.key_id === small.key_id)).toMatchObject({
        monthly_quota: 1,
        rate_per_minute: 180,
      });
      await expectLimitsEnforced(server, limited, small);
    });

    test("usage reports what was billed over HTTP, as GET /usage does", async () => {
      billedKey = await create(["--plan", "free"]);
      for (let i = 0; i < 3; i++) expect((await validateIban(server, billedKey.api_key)).status).toBe(200);
      const report = await usage(billedKey.key_id);
      expect(report).toMatchObject({
        key_id: billedKey.key_id,
        plan: "free",
        monthly_quota: 100,
        used: 3,
        remaining: 97,
        requests_this_month: 3,
      });
      const overHttp = await httpUsage(server, billedKey.api_key);
      expect(overHttp.status).toBe(200);
      expect(overHttp.body).toEqual(report);
    });

    test(`revoke: the server refuses the key with 403 within KEY_CACHE_TTL_MS (${KEY_CACHE_TTL_MS} ms)`, async () => {
      revoked = await create(["--plan", "free"]);
      // In use, so the server has it cached as valid when the revocation lands.
      expect((await validateIban(server, revoked.api_key)).status).toBe(200);
      const summary = JSON.parse(await box.keysOk(["revoke", revoked.key_id], env)) as KeySummary;
      expect(summary.key_id).toBe(revoked.key_id);
      expect(Date.parse(summary.revoked_at ?? "")).toBeGreaterThan(Date.parse(summary.created_at));

      await Bun.sleep(KEY_CACHE_TTL_MS);
      const refused = await validateIban(server, revoked.api_key);
      expect(refused.status).toBe(403);
      expect(refused.body.error?.code).toBe("forbidden");
      expect((await httpUsage(server, revoked.api_key)).status).toBe(403);

      // Revoking again changes nothing: the first revocation time stands.
      const again = await box.keys(["revoke", revoked.key_id], env);
      expect(again.code).toBe(0);
      expect((JSON.parse(again.stdout) as KeySummary).revoked_at).toBe(summary.revoked_at);
    });

    test("revoke and usage of a key that does not exist fail, with nothing on stdout", () =>
      expectUnknownKeyRefused(box, env));

    test("webhook-secret shows a key's signing secret, and --rotate replaces it", async () =>
      expectWebhookSecretShown(box, env, (await create(["--plan", "pro"])).key_id));
  });

  describe("with no server running, keys open the data directory themselves", () => {
    test("SIGTERM stops the server cleanly and frees the directory", async () => {
      expect(await server.stop()).toBe(0);
      expect(readFileSync(join(dataDir, "owner.pid"), "utf8")).toBe("");
      expect(existsSync(join(dataDir, "admin.sock"))).toBe(false);
    });

    test("list and usage read what was written while the server ran", async () => {
      const { keys } = await list();
      expect(keys.find((key) => key.key_id === revoked.key_id)?.revoked_at).toEqual(expect.any(String));
      expect(keys.find((key) => key.key_id === basic.key_id)?.revoked_at).toBeNull();
      expect((await usage(billedKey.key_id)).used).toBe(3);
    });

    test("create works offline and releases the directory when done", async () => {
      offline = await create(["--plan", "basic", "--name", "issued offline"]);
      expect(offline.api_key).toMatch(/^vsk_[0-9A-Za-z]{49}$/);
      expect(readFileSync(join(dataDir, "owner.pid"), "utf8")).toBe("");
      const exit = await box.keys(["revoke", "key_doesnotexist0000"], env);
      expect(exit).toMatchObject({
        code: 1,
        stdout: "",
        stderr: "keys revoke: no key key_doesnotexist0000\n",
      });
    });

    test("after a restart on the same directory, everything is still there", async () => {
      server = await box.startServer(env);
      expect(ownerPid()).toBe(String(server.pid));
      expect((await validateIban(server, offline.api_key)).status).toBe(200);
      expect((await validateIban(server, basic.api_key)).status).toBe(200);
      expect((await validateIban(server, revoked.api_key)).status).toBe(403);
      expect((await httpUsage(server, billedKey.api_key)).body).toMatchObject({
        used: 3,
        requests_this_month: 3,
      });
      expect((await usage(offline.key_id)).used).toBe(1);
    });
  });
});
