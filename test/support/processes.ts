/**
 * Throwaway Postgres and Redis servers, private to one test file, so fault tests can stop,
 * kill and restart them without touching the machine's shared servers. Each lives in its
 * own temp directory on a free loopback port and is removed by `destroy()` — and, should the
 * test process die first, by an exit hook.
 */
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import postgres from "postgres";
import { freePort } from "./ports.ts";

/** Resolves once something accepts TCP connections on `port`, or throws after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
      (socket) => {
        socket.end();
        return true;
      },
      () => false,
    );
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await Bun.sleep(25);
  }
}

/** Synchronous clean-ups run when the test process exits, in case `destroy()` never ran. */
const onExit = new Set<() => void>();
process.once("exit", () => {
  for (const cleanup of onExit) cleanup();
});

function postgresBinary(name: string): string {
  const onPath = Bun.which(name);
  if (onPath) return onPath;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort().reverse() : [];
  for (const version of versions) {
    const candidate = join(root, version, "bin", name);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} not found on PATH or under ${root}/*/bin`);
}

function userId(name: string): number {
  const found = spawnSync("id", ["-u", name], { encoding: "utf8" });
  if (found.status !== 0) throw new Error(`no user ${name}: the Postgres binaries refuse to run as root`);
  return Number(found.stdout.trim());
}

export type ThrowawayPostgres = {
  /** `postgres://postgres@127.0.0.1:PORT/service` (trust auth). */
  url: string;
  port: number;
  /** A client of the test's own, for reading usage rows; it reconnects after a restart. */
  sql: postgres.Sql;
  /** `pg_ctl stop -m MODE`: `fast` rolls back open transactions and disconnects everyone. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts the stopped server again on the same port and data directory. */
  start(): Promise<void>;
  /** Stops the server (immediate) and removes its directory. */
  destroy(): Promise<void>;
};

/**
 * Starts a private Postgres: `initdb` into a new temp directory, `pg_ctl start` on a free
 * loopback port with its socket in that directory, trust authentication, and a database
 * named `service`. The server binaries refuse to run as root, so as root they run as the
 * `postgres` user. Durability settings are relaxed (fsync off): the tests stop Postgres
 * cleanly or kill our server, never the machine.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const asRoot = process.getuid?.() === 0;
  const directory = mkdtempSync(join(tmpdir(), "pg-throwaway-"));
  if (asRoot) chownSync(directory, userId("postgres"), 0);
  const dataDir = join(directory, "data");
  const port = freePort();
  const pgCtl = postgresBinary("pg_ctl");
  const asPostgres = (argv: string[]) => (asRoot ? ["runuser", "-u", "postgres", "--", ...argv] : argv);
  // Asynchronous: the tests' load loops and the VIES fake live in this process and must keep
  // running while Postgres stops and starts.
  const run = async (argv: string[]) => {
    const child = Bun.spawn(asPostgres(argv), {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (code !== 0) throw new Error(`${argv.join(" ")} failed (${code}):\n${stdout}\n${stderr}`);
  };
  const emergency = () => {
    const [file = "", ...args] = asPostgres([pgCtl, "stop", "-D", dataDir, "-m", "immediate"]);
    spawnSync(file, args, { stdio: "ignore" });
    rmSync(directory, { recursive: true, force: true });
  };
  onExit.add(emergency);

  const options = [
    `-p ${port}`,
    `-k ${directory}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  const start = () =>
    run([
      pgCtl,
      "start",
      "-D",
      dataDir,
      "-w",
      "-t",
      "30",
      "-l",
      join(directory, "server.log"),
      "-o",
      options,
    ]);
  try {
    await run([
      postgresBinary("initdb"),
      "-D",
      dataDir,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--no-sync",
    ]);
    await start();
    const admin = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, onnotice: () => {} });
    await admin`CREATE DATABASE service`;
    await admin.end({ timeout: 1 });
  } catch (error) {
    emergency();
    onExit.delete(emergency);
    throw error;
  }

  const url = `postgres://postgres@127.0.0.1:${port}/service`;
  const sql = postgres(url, { max: 2, onnotice: () => {}, connect_timeout: 5 });
  return {
    url,
    port,
    sql,
    stop(mode = "fast") {
      return run([pgCtl, "stop", "-D", dataDir, "-m", mode, "-w"]);
    },
    start,
    async destroy() {
      await sql.end({ timeout: 1 }).catch(() => {});
      emergency();
      onExit.delete(emergency);
    },
  };
}

export type ThrowawayRedis = {
  /** `redis://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** Kills the server (SIGKILL by default, as a crash would end it); its data is gone. */
  stop(signal?: "SIGKILL" | "SIGTERM"): Promise<void>;
  /** Starts a new, empty server on the same port. */
  start(): Promise<void>;
  /** One command on a connection of its own, e.g. `["KEYS", "*"]`. */
  command(args: string[]): Promise<unknown>;
  destroy(): Promise<void>;
};

/**
 * Starts a private Redis as a child process: a free loopback port, nothing saved to disk,
 * its working directory a new temp directory.
 */
export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const directory = mkdtempSync(join(tmpdir(), "redis-throwaway-"));
  const port = freePort();
  let child: Subprocess | null = null;
  const emergency = () => {
    child?.kill("SIGKILL");
    rmSync(directory, { recursive: true, force: true });
  };
  onExit.add(emergency);

  const start = async () => {
    child = Bun.spawn(
      [
        "redis-server",
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
        "--dir",
        directory,
      ],
      { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
    );
    await waitForPort(port, 10_000);
  };
  const stop = async (signal: "SIGKILL" | "SIGTERM" = "SIGKILL") => {
    const running = child;
    child = null;
    if (!running) return;
    running.kill(signal);
    await running.exited;
  };
  try {
    await start();
  } catch (error) {
    emergency();
    onExit.delete(emergency);
    throw error;
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async command(args) {
      const client = new Bun.RedisClient(`redis://127.0.0.1:${port}`, { autoReconnect: false });
      try {
        const [name = "PING", ...rest] = args;
        return await client.send(name, rest);
      } finally {
        client.close();
      }
    },
    async destroy() {
      await stop();
      emergency();
      onExit.delete(emergency);
    },
  };
}
