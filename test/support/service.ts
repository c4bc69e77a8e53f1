/**
 * The service and its commands as real child processes, for the tests that need a process
 * boundary (and the load benchmark):
 * - `sandbox()`: processes and temp directories of one test file — commands run to their
 *   end, and servers on a port of their own choosing, announced by their `listening` line;
 * - `serviceProcess()`: the service on a fixed loopback port, so it can be killed and
 *   started again at the same address while clients keep sending. What it logs is consumed
 *   continuously (a full pipe would stall it), counted by event, and the last lines are kept
 *   for failure messages.
 * Both run with `serviceEnv`: nothing of the outer shell's configuration leaks in.
 */
import { expect } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";
import type { CreatedKey } from "../../src/accounts/admin.ts";
import { ConfigSchema } from "../../src/config.ts";
import { freePort } from "./ports.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BUN = join(ROOT, "node_modules/.bin/bun");
/** An IBAN that passes every check: a billable validation with no upstream involved. */
export const IBAN = "DE89370400440532013000";
/** The revocation bound the servers under test run with (KEY_CACHE_TTL_MS). */
export const KEY_CACHE_TTL_MS = 500;
/**
 * A guard against a command that hangs, not a measure of speed: a first open of embedded
 * Postgres and its migrations took over 20 s on a loaded machine, and was killed mid-way.
 */
const COMMAND_TIMEOUT_MS = 60_000;

export type Exit = { code: number; stdout: string; stderr: string; ms: number; pid: number };

export type RunningServer = {
  pid: number;
  url: string;
  /** The `listening` log line. */
  listening: Record<string, unknown>;
  /** SIGTERM, then the exit status. */
  stop(): Promise<number>;
  /** SIGKILL, as a crash would end it; resolves once the process is gone. */
  crash(): Promise<void>;
};

/**
 * This process's environment (PATH, HOME…) without any of the service's settings, so that
 * nothing from the outer shell leaks into a service started from here: a `DATABASE_URL` set
 * for one deployment would otherwise turn an embedded one into another Postgres one.
 */
export function outerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !(name in ConfigSchema.properties)) env[name] = value;
  }
  return env;
}

/**
 * The environment of a child process: `outerEnv()` plus the test defaults and `settings`.
 * VIES and the registers point at a closed port: these tests only validate IBANs, and must never reach out.
 */
export function serviceEnv(settings: Record<string, string>): Record<string, string> {
  return {
    ...outerEnv(),
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "info",
    KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS),
    VIES_BASE_URL: "http://127.0.0.1:9",
    CH_UID_BASE_URL: "http://127.0.0.1:9",
    NO_BRREG_BASE_URL: "http://127.0.0.1:9",
    ...settings,
  };
}

async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    let end = pending.indexOf("\n");
    while (end >= 0) {
      onLine(pending.slice(0, end));
      pending = pending.slice(end + 1);
      end = pending.indexOf("\n");
    }
  }
  if (pending) onLine(pending);
}

export type Sandbox = ReturnType<typeof sandbox>;

/**
 * Real processes and temp directories for one test file, all of them removed by `cleanup`
 * (call it in afterAll, so a failing test still leaves nothing running behind).
 */
export function sandbox() {
  const processes = new Set<Subprocess>();
  const directories: string[] = [];

  const spawn = (argv: string[], env: Record<string, string>, timeout?: number) => {
    const child = Bun.spawn(argv, {
      cwd: ROOT,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout,
    });
    processes.add(child);
    void child.exited.then(() => processes.delete(child));
    return child;
  };

  /** Runs a command to its end (killed if it takes more than 20 s). */
  const run = async (argv: string[], env: Record<string, string>): Promise<Exit> => {
    const started = performance.now();
    const child = spawn(argv, env, COMMAND_TIMEOUT_MS);
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    return { code, stdout, stderr, ms: performance.now() - started, pid: child.pid };
  };

  /** `bun src/cli/keys.ts …`. */
  const keys = (args: string[], env: Record<string, string>) => run([BUN, "src/cli/keys.ts", ...args], env);

  /** `bun src/cli/keys.ts …` that must succeed (exit 0, nothing on stderr): resolves with its stdout. */
  const keysOk = async (args: string[], env: Record<string, string>): Promise<string> => {
    const exit = await keys(args, env);
    expect(exit).toMatchObject({ code: 0, stderr: "" });
    return exit.stdout;
  };

  return {
    /** A new empty directory under the system's temp directory. */
    tempDir(): string {
      const directory = mkdtempSync(join(tmpdir(), "vat-iban-cli-"));
      directories.push(directory);
      return directory;
    },

    run,

    /** A process left running until it is killed (or `cleanup`). */
    spawn: (argv: string[]) => spawn(argv, serviceEnv({})),

    keys,

    keysOk,

    /** `keys create …` that must succeed: the key it printed, as its only line. */
    async createKey(args: string[], env: Record<string, string>): Promise<CreatedKey> {
      return singleJsonLine(await keysOk(["create", ...args], env)) as CreatedKey;
    },

    /** `npm run SCRIPT -- …`, as the README tells operators to type it. */
    npmRun: (
      script: string,
      args: string[],
      env: Record<string, string>,
      options: { silent?: boolean } = {},
    ) => run(["npm", "run", ...(options.silent ? ["--silent"] : []), script, "--", ...args], env),

    /**
     * `bun src/index.ts` (after `wrapper`, a command that runs it, such as strace), once it
     * has logged that it is listening.
     */
    async startServer(env: Record<string, string>, wrapper: string[] = []): Promise<RunningServer> {
      const child = spawn([...wrapper, BUN, "src/index.ts"], env);
      const output: string[] = [];
      let listening: Record<string, unknown> | undefined;
      const heard = Promise.withResolvers<void>();
      const stdout = readLines(child.stdout, (line) => {
        output.push(line);
        if (!line.includes('"event":"listening"')) return;
        listening = JSON.parse(line) as Record<string, unknown>;
        heard.resolve();
      });
      const stderr = readLines(child.stderr, (line) => output.push(line));
      await Promise.race([heard.promise, child.exited]);
      if (!listening) {
        await Promise.all([stdout, stderr]);
        throw new Error(`the server exited (${child.exitCode ?? child.signalCode}):\n${output.join("\n")}`);
      }
      return {
        pid: child.pid,
        url: `http://127.0.0.1:${listening.port}`,
        listening,
        async stop() {
          child.kill("SIGTERM");
          return child.exited;
        },
        async crash() {
          child.kill("SIGKILL");
          await child.exited;
        },
      };
    },

    async cleanup(): Promise<void> {
      for (const child of processes) child.kill("SIGKILL");
      await Promise.all([...processes].map((child) => child.exited));
      for (const directory of directories) rmSync(directory, { recursive: true, force: true });
    },
  };
}

const TAIL_LINES = 200;

export type ServiceProcess = {
  url: string;
  port: number;
  /** The whole environment it runs with (for the keys command, which must see the same). */
  env: Record<string, string>;
  /** Pid of the running process; null while stopped. */
  pid(): number | null;
  /** Starts the service (again) on its port; resolves once /health answers. */
  start(): Promise<void>;
  /** SIGKILL, as a crash would end it; resolves once the process is gone. */
  crash(): Promise<void>;
  /** SIGTERM; resolves with the exit status. */
  stop(): Promise<number>;
  /** Resident memory of the running process in KiB (from /proc, else `ps`). */
  rssKb(): number | null;
  /** How often each log `event` was logged, over every start. */
  events: Map<string, number>;
  /** Log lines at level `error`, parsed, over every start. */
  errors: Record<string, unknown>[];
  /** The last lines the process wrote, for failure messages. */
  tail(): string;
};

/** Resident set size of `pid` in KiB, or null when the process is gone. */
export function rssKbOf(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    if (match?.[1]) return Number(match[1]);
  } catch {
    // No /proc (macOS): ask ps.
  }
  const ps = Bun.spawnSync(["ps", "-o", "rss=", "-p", String(pid)]);
  const value = Number(ps.stdout.toString().trim());
  return ps.exitCode === 0 && value > 0 ? value : null;
}

const running = new Set<Subprocess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/**
 * A service process with `settings` on top of the test defaults of `serviceEnv` (nothing of
 * the outer shell's configuration leaks in). Not started: call `start()`. Use
 * `stopAllServices()` in afterAll.
 */
export function serviceProcess(settings: Record<string, string>): ServiceProcess {
  const port = freePort();
  const env = serviceEnv({ LOG_LEVEL: "warn", ...settings, PORT: String(port) });
  const events = new Map<string, number>();
  const errors: Record<string, unknown>[] = [];
  const lines: string[] = [];
  let child: Subprocess<"ignore", "pipe", "pipe"> | null = null;

  const remember = (line: string) => {
    lines.push(line);
    if (lines.length > TAIL_LINES) lines.shift();
    // Cheap enough for thousands of request lines a second: only error lines are parsed.
    const event = /"event":"([^"]+)"/.exec(line)?.[1];
    if (event) events.set(event, (events.get(event) ?? 0) + 1);
    if (!line.includes('"level":"error"')) return;
    try {
      errors.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // Not one of our log lines (a runtime message): kept in the tail only.
    }
  };

  const service: ServiceProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    env,
    pid: () => child?.pid ?? null,
    async start() {
      if (child) throw new Error("the service is already running");
      const started = Bun.spawn([BUN, "src/index.ts"], {
        cwd: ROOT,
        env,
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      child = started;
      running.add(started);
      void started.exited.then(() => {
        running.delete(started);
        if (child === started) child = null;
      });
      void readLines(started.stdout, remember);
      void readLines(started.stderr, remember);
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && started.exitCode === null) {
        const healthy = await fetch(`${service.url}/health`, { signal: AbortSignal.timeout(1000) })
          .then((response) => response.ok)
          .catch(() => false);
        if (healthy) return;
        await Bun.sleep(50);
      }
      started.kill("SIGKILL");
      await started.exited;
      throw new Error(
        `the service did not start (${started.exitCode ?? started.signalCode}):\n${service.tail()}`,
      );
    },
    async crash() {
      const current = child;
      if (!current) return;
      current.kill("SIGKILL");
      await current.exited;
    },
    async stop() {
      const current = child;
      if (!current) return 0;
      current.kill("SIGTERM");
      return current.exited;
    },
    rssKb() {
      return child ? rssKbOf(child.pid) : null;
    },
    events,
    errors,
    tail: () => lines.slice(-40).join("\n"),
  };
  return service;
}

/** Kills every service process this test process started and waits for them to be gone. */
export async function stopAllServices(): Promise<void> {
  const children = [...running];
  for (const child of children) child.kill("SIGKILL");
  await Promise.all(children.map((child) => child.exited));
}

/** POST /validate of one IBAN with `key` to `server` (a RunningServer or a ServiceProcess): status, body and headers. */
export async function validateIban(server: { url: string }, key: string) {
  const response = await fetch(`${server.url}/validate`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ iban: IBAN }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { error?: { code: string; message: string } },
  };
}

/** GET /usage with `key`. */
export async function httpUsage(server: { url: string }, key: string) {
  const response = await fetch(`${server.url}/usage`, { headers: { "x-api-key": key } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Waits until at least `marginMs` remain in the current UTC minute, so that a short burst
 * falls in one window of the per-minute limit (windows are aligned to the minute).
 */
export async function awayFromMinuteEdge(marginMs = 3000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await Bun.sleep(left + 50);
}

/** Parses stdout that must be exactly one line holding one JSON value, and nothing else. */
export function singleJsonLine(stdout: string): unknown {
  const linesOut = stdout.split("\n");
  if (linesOut.length !== 2 || linesOut[1] !== "" || !linesOut[0]) {
    throw new Error(`expected exactly one line on stdout, got ${JSON.stringify(stdout)}`);
  }
  return JSON.parse(linesOut[0]);
}
