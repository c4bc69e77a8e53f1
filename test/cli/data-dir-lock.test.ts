import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, type RunningServer, sandbox, serviceEnv, validateIban } from "../support/service.ts";

// Real processes, and a first start of embedded Postgres, take longer than bun's 5 s default.
setDefaultTimeout(30_000);

const box = sandbox();
let dataDir: string;
let env: Record<string, string>;
let server: RunningServer;

const ownerFile = () => join(dataDir, "owner.pid");
const owner = () => readFileSync(ownerFile(), "utf8");

/** A pid that no process has any more. */
async function deadPid(): Promise<number> {
  const gone = box.spawn([BUN, "-e", "0"]);
  await gone.exited;
  return gone.pid;
}

beforeAll(async () => {
  dataDir = box.tempDir();
  env = serviceEnv({ DATA_DIR: dataDir });
  server = await box.startServer(env);
});
afterAll(() => box.cleanup());

describe("one process at a time owns the embedded data directory", () => {
  test("a second server refuses to start on it, and the first keeps serving", async () => {
    const second = await box.run([BUN, "src/index.ts"], env);
    expect(second.code).toBe(1);
    const failure = second.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event: string; error?: string })
      .find((line) => line.event === "startup_failed");
    expect(failure?.error).toBe(
      `${dataDir} is in use by server (pid ${server.pid}); stop it or use DATABASE_URL`,
    );
    expect(owner()).toBe(`${server.pid} server\n`);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  test("a live owner without an admin socket: keys and the server both refuse", async () => {
    expect(await server.stop()).toBe(0);
    const holder = box.spawn([BUN, "-e", "await Bun.sleep(60_000)"]);
    try {
      writeFileSync(ownerFile(), `${holder.pid} keys command\n`);
      const keys = await box.keys(["list"], env);
      expect(keys).toMatchObject({ code: 1, stdout: "" });
      expect(keys.stderr).toBe(
        `keys list: ${dataDir} is in use by keys command (pid ${holder.pid}); stop it or use DATABASE_URL\n`,
      );
      expect((await box.run([BUN, "src/index.ts"], env)).code).toBe(1);
      expect(owner()).toBe(`${holder.pid} keys command\n`);
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
  });

  test("an owner.pid left by a process that is gone is taken over", async () => {
    // The holder of the previous test is dead now; its file is still there.
    expect(existsSync(ownerFile())).toBe(true);
    const key = await box.createKey(["--plan", "free"], env);
    expect(existsSync(ownerFile())).toBe(false);

    writeFileSync(ownerFile(), `${await deadPid()} server\n`);
    server = await box.startServer(env);
    expect(owner()).toBe(`${server.pid} server\n`);
    expect((await validateIban(server, key.api_key)).status).toBe(200);
  });

  test("an owner.pid of a killed process nobody has reaped (a zombie) is taken over", async () => {
    await server.crash();
    // The background `sleep` ends after its shell has become `sleep 30`, which never waits for it.
    const parent = Bun.spawn(["sh", "-c", "sleep 0.05 & echo $!; exec sleep 30"], { stdout: "pipe" });
    try {
      const reader = parent.stdout.getReader();
      const zombie = Number(new TextDecoder().decode((await reader.read()).value).trim());
      reader.releaseLock();
      await Bun.sleep(300);
      expect(readFileSync(`/proc/${zombie}/stat`, "utf8")).toContain(") Z ");
      writeFileSync(ownerFile(), `${zombie} server\n`);
      server = await box.startServer(env);
      expect(owner()).toBe(`${server.pid} server\n`);
    } finally {
      parent.kill("SIGKILL");
      await parent.exited;
    }
  });

  test("after a crash, keys open the directory past the dead socket, and the next server starts", async () => {
    await server.crash();
    expect(existsSync(ownerFile())).toBe(true);
    expect(existsSync(join(dataDir, "admin.sock"))).toBe(true);

    const key = await box.createKey(["--plan", "pro"], env);

    server = await box.startServer(env);
    expect(owner()).toBe(`${server.pid} server\n`);
    expect((await validateIban(server, key.api_key)).status).toBe(200);
    const listed = await box.keys(["list"], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(key.key_id);
  });
});
