import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";
import { ConfigSchema } from "../../src/config.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BUN = join(ROOT, "node_modules/.bin/bun");
/** An IBAN that passes every check: a billable validation with no upstream involved. */
export const IBAN = "DE89370400440532013000";
/** The revocation bound the servers under test run with (KEY_CACHE_TTL_MS). */
export const KEY_CACHE_TTL_MS = 500;
const COMMAND_TIMEOUT_MS = 20_000;

export type Exit = { code: number; stdout: string; stderr: string; ms: number };

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
 * The environment of a child process: this one's (PATH, HOME…) without any of the service's
 * settings, so nothing from the outer shell leaks in, plus the test defaults and `settings`.
 * VIES points at a closed port: these tests only validate IBANs, and must never reach out.
 */
export function serviceEnv(settings: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !(name in ConfigSchema.properties)) env[name] = value;
  }
  return {
    ...env,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "info",
    KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS),
    VIES_BASE_URL: "http://127.0.0.1:9",
    ...settings,
  };
}

async function lines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
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
    return { code, stdout, stderr, ms: performance.now() - started };
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

    /** `bun src/cli/keys.ts …`. */
    keys: (args: string[], env: Record<string, string>) => run([BUN, "src/cli/keys.ts", ...args], env),

    /** `npm run SCRIPT -- …`, as the README tells operators to type it. */
    npmRun: (
      script: string,
      args: string[],
      env: Record<string, string>,
      options: { silent?: boolean } = {},
    ) => run(["npm", "run", ...(options.silent ? ["--silent"] : []), script, "--", ...args], env),

    /** `bun src/index.ts`, once it has logged that it is listening. */
    async startServer(env: Record<string, string>): Promise<RunningServer> {
      const child = spawn([BUN, "src/index.ts"], env);
      const output: string[] = [];
      let listening: Record<string, unknown> | undefined;
      const heard = Promise.withResolvers<void>();
      const stdout = lines(child.stdout, (line) => {
        output.push(line);
        if (!line.includes('"event":"listening"')) return;
        listening = JSON.parse(line) as Record<string, unknown>;
        heard.resolve();
      });
      const stderr = lines(child.stderr, (line) => output.push(line));
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

/** POST /validate of one IBAN with `key`: status, body and headers. */
export async function validateIban(server: RunningServer, key: string) {
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
export async function httpUsage(server: RunningServer, key: string) {
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
