/**
 * The service as a real child process (`bun src/index.ts`) on a fixed loopback port, so it
 * can be killed and started again at the same address while clients keep sending. What it
 * logs is consumed continuously (a full pipe would stall it), counted by event, and the
 * last lines are kept for failure messages.
 */
import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { BUN, ROOT, serviceEnv } from "../cli/support.ts";
import { freePort } from "./processes.ts";

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
