import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Usage } from "../../src/http/schemas.ts";
import { describeEmbedded } from "../support/database.ts";
import {
  BUN,
  type Exit,
  ROOT,
  type RunningServer,
  sandbox,
  serviceEnv,
  validateIban,
} from "../support/service.ts";

// Real processes, and a first start of embedded Postgres, take longer than bun's 5 s default.
setDefaultTimeout(30_000);

const box = sandbox();
let dataDir: string;
let env: Record<string, string>;
let server: RunningServer;

const ownerFile = () => join(dataDir, "owner.pid");
/** What the owner record says: `PID ROLE`, or "" once its owner let the directory go. */
const owner = () => readFileSync(ownerFile(), "utf8").trim();
const inUseBy = (directory: string, who: string) =>
  `${directory} is in use by ${who}; stop it or use DATABASE_URL`;

/** A pid that no process has any more. */
async function deadPid(): Promise<number> {
  const gone = box.spawn([BUN, "-e", "0"]);
  await gone.exited;
  return gone.pid;
}

/** A process holding the data directory the way a keys command does, until killed. */
async function holder(directory: string, role: string) {
  const child = Bun.spawn(
    [
      BUN,
      "-e",
      `const { DataDirLock } = await import(${JSON.stringify(join(ROOT, "src/kernel/data-dir-lock.ts"))});
       DataDirLock.acquire(${JSON.stringify(directory)}, ${JSON.stringify(role)});
       console.log("held");
       await Bun.sleep(60_000);`,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  const reader = child.stdout.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toBe("held\n");
  reader.releaseLock();
  return child;
}

/** The `startup_failed` message of a server that exited, from its output. */
function startupFailure(error: unknown): string | undefined {
  const output = error instanceof Error ? error.message : String(error);
  const line = output.split("\n").find((text) => text.includes('"event":"startup_failed"'));
  return line ? (JSON.parse(line) as { error: string }).error : undefined;
}

describeEmbedded("the embedded data directory", () => {
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
      expect(failure?.error).toBe(inUseBy(dataDir, `server (pid ${server.pid})`));
      expect(owner()).toBe(`${server.pid} server`);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    });

    test("a live owner without an admin socket: keys and the server both refuse, naming it", async () => {
      expect(await server.stop()).toBe(0);
      expect(owner()).toBe("");
      const keysCommand = await holder(dataDir, "keys command");
      try {
        const keys = await box.keys(["list"], env);
        expect(keys).toMatchObject({ code: 1, stdout: "" });
        expect(keys.stderr).toBe(`keys list: ${inUseBy(dataDir, `keys command (pid ${keysCommand.pid})`)}\n`);
        expect((await box.run([BUN, "src/index.ts"], env)).code).toBe(1);
        expect(owner()).toBe(`${keysCommand.pid} keys command`);
      } finally {
        keysCommand.kill("SIGKILL");
        await keysCommand.exited;
      }
    });

    test("an owner record naming a process that is gone holds nothing", async () => {
      // The holder of the previous test was killed: its record is still there.
      expect(owner()).toMatch(/^\d+ keys command$/);
      const key = await box.createKey(["--plan", "free"], env);
      expect(owner()).toBe("");

      writeFileSync(ownerFile(), `${await deadPid()} server\n`);
      server = await box.startServer(env);
      expect(owner()).toBe(`${server.pid} server`);
      expect((await validateIban(server, key.api_key)).status).toBe(200);
    });

    test("an owner record naming a killed process nobody has reaped (a zombie) holds nothing", async () => {
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
        expect(owner()).toBe(`${server.pid} server`);
      } finally {
        parent.kill("SIGKILL");
        await parent.exited;
      }
    });

    test("after a crash, keys open the directory past the dead socket, and the next server starts", async () => {
      await server.crash();
      expect(owner()).toBe(`${server.pid} server`);
      expect(statSync(join(dataDir, "admin.sock")).isSocket()).toBe(true);

      const key = await box.createKey(["--plan", "pro"], env);

      server = await box.startServer(env);
      expect(owner()).toBe(`${server.pid} server`);
      expect((await validateIban(server, key.api_key)).status).toBe(200);
      const listed = await box.keys(["list"], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(key.key_id);
      await server.stop();
    });
  });

  describe("starting together over a stale owner record", () => {
    test("many rounds of eight processes taking the lock at once: one owner each round, the others name it", async () => {
      const directory = box.tempDir();
      const release = join(directory, "release");
      // The owner holds on until every other contender has tried: on a loaded machine a process
      // may start seconds after the others, and a lock given up by then is rightly taken again.
      const contender = `
      const { existsSync } = await import("node:fs");
      const { DataDirLock } = await import(${JSON.stringify(join(ROOT, "src/kernel/data-dir-lock.ts"))});
      try {
        DataDirLock.acquire(process.argv[1], "contender");
        console.log("owner " + process.pid);
        const until = Date.now() + 20_000;
        while (!existsSync(process.argv[2]) && Date.now() < until) await Bun.sleep(20);
      } catch (error) {
        console.log(error.message);
        process.exit(1);
      }`;
      for (let round = 0; round < 10; round++) {
        rmSync(release, { force: true });
        writeFileSync(join(directory, "owner.pid"), `${await deadPid()} server\n`);
        let refused = 0;
        const exits = await Promise.all(
          Array.from({ length: 8 }, () =>
            box.run([BUN, "-e", contender, directory, release], serviceEnv({})).then((exit) => {
              if (exit.code !== 0 && ++refused === 7) writeFileSync(release, "");
              return exit;
            }),
          ),
        );
        const owners = exits.filter((exit) => exit.code === 0);
        expect(owners.map((exit) => exit.stdout)).toEqual([`owner ${owners[0]?.pid}\n`]);
        for (const exit of exits.filter((other) => other.code !== 0)) {
          expect(exit.stdout).toBe(`${inUseBy(directory, `contender (pid ${owners[0]?.pid})`)}\n`);
        }
      }
    }, 120_000);

    test("servers and keys commands together, round after round: one owner, exact usage", async () => {
      const directory = box.tempDir();
      const shared = serviceEnv({ DATA_DIR: directory });
      const key = await box.createKey(["--plan", "pro"], shared);
      let billed = 0;
      let serverRounds = 0;
      for (let round = 0; round < 6; round++) {
        // Commands start faster than servers and win most mixed rounds: every other round is
        // servers only, so that rounds with a server serving and being killed come too.
        const mixed = round % 2 === 1;
        // A killed server leaves its record behind; after a command that ended, one is written.
        if (readFileSync(join(directory, "owner.pid"), "utf8") === "") {
          writeFileSync(join(directory, "owner.pid"), `${await deadPid()} server\n`);
        }
        const servers = (mixed ? [0, 1] : [0, 1, 2]).map(() =>
          box.startServer(shared).then(
            (running) => ({ running, failure: undefined }),
            (error: unknown) => ({ running: undefined, failure: startupFailure(error) }),
          ),
        );
        const commands = (mixed ? [0, 1] : []).map(() => box.keys(["usage", key.key_id], shared));
        const started = await Promise.all(servers);
        const ran: Exit[] = await Promise.all(commands);

        const listening = started.flatMap((outcome) => (outcome.running ? [outcome.running] : []));
        expect(listening.length).toBeLessThanOrEqual(1);
        const succeeded = ran.filter((exit) => exit.code === 0);
        // Every command that ran saw every unit billed so far, once.
        for (const exit of succeeded) expect((JSON.parse(exit.stdout) as Usage).used).toBe(billed);
        const owners = new Map<number, string>([
          ...listening.map((running) => [running.pid, "server"] as const),
          ...succeeded.map((exit) => [exit.pid, "keys command"] as const),
        ]);
        expect(owners.size).toBeGreaterThan(0);
        const named = [
          ...started.flatMap((outcome) => (outcome.failure === undefined ? [] : [outcome.failure])),
          ...ran
            .filter((exit) => exit.code !== 0)
            .map((exit) => exit.stderr.replace(/^keys usage: |\n$/g, "")),
        ];
        expect(named.length + listening.length + succeeded.length).toBe(servers.length + commands.length);
        for (const message of named) {
          const pid = Number(/\(pid (\d+)\)/.exec(message)?.[1]);
          expect(message).toBe(inUseBy(directory, `${owners.get(pid)} (pid ${pid})`));
        }

        const [running] = listening;
        if (running) {
          serverRounds += 1;
          for (let i = 0; i <= round % 3; i++) {
            expect((await validateIban(running, key.api_key)).status).toBe(200);
            billed += 1;
          }
          // Killed: its owner record stays behind, naming a process that is gone.
          await running.crash();
        }
      }
      expect(serverRounds).toBeGreaterThan(0);
      expect((JSON.parse(await box.keysOk(["usage", key.key_id], shared)) as Usage).used).toBe(billed);
    }, 180_000);
  });

  describe("the admin socket", () => {
    test("is created owner-only: bound under umask 0177, with no window before a chmod", async () => {
      const directory = box.tempDir();
      const trace = join(directory, "trace.txt");
      const traced = await box.startServer(serviceEnv({ DATA_DIR: join(directory, "data") }), [
        "strace",
        "-f",
        "-qq",
        "-e",
        "trace=umask,bind",
        "-o",
        trace,
      ]);
      const socket = join(directory, "data", "admin.sock");
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      // Replays the process's umask over the traced calls: the bind of the socket must see 0177.
      let umask: string | null = null;
      let maskAtBind: string | null = null;
      let server: number | null = null;
      for (const line of readFileSync(trace, "utf8").split("\n")) {
        const set = /umask\((0\d*)\)/.exec(line);
        if (set?.[1]) umask = set[1];
        if (line.includes("bind(") && line.includes(socket)) {
          maskAtBind = umask;
          server = Number(line.split(" ")[0]);
        }
      }
      expect(maskAtBind).toBe("0177");
      // strace detaches on SIGTERM and leaves the server running: the server itself is stopped.
      if (server) process.kill(server, "SIGTERM");
      await traced.stop();
    });
  });
});
