import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../test/support/ports.ts";
import { outerEnv } from "../test/support/service.ts";

/** A child process serving HTTP on `port`. */
export type RunningServer = { port: number; pid: number; stop(): Promise<void> };

function positiveIntegerFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** The wrk load every HTTP benchmark applies: BENCH_CONNECTIONS (64) for BENCH_SECONDS (10) after a warm-up. */
export const LOAD = {
  connections: positiveIntegerFromEnv("BENCH_CONNECTIONS", 64),
  seconds: positiveIntegerFromEnv("BENCH_SECONDS", 10),
  warmupSeconds: 3,
};

/** Starts `command` with PORT set and waits until `readyPath` answers. */
export async function startServer(
  command: string[],
  env: Record<string, string>,
  readyPath = "/health",
): Promise<RunningServer> {
  const port = freePort();
  const child = Bun.spawn(command, {
    env: { ...outerEnv(), ...env, PORT: String(port) },
    stdout: "ignore",
    stderr: "inherit",
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const ready = await fetch(`http://127.0.0.1:${port}${readyPath}`, {
      method: readyPath === "/health" ? "GET" : "POST",
    })
      .then(() => true)
      .catch(() => false);
    if (ready) {
      return {
        port,
        pid: child.pid,
        async stop() {
          child.kill("SIGTERM");
          await child.exited;
        },
      };
    }
    await Bun.sleep(100);
  }
  child.kill("SIGKILL");
  throw new Error(`${command.join(" ")} did not start on port ${port}`);
}

/** wrk from PATH, installed from Debian's packages when missing and we may. */
export function findWrk(): string {
  const which = () => spawnSync("sh", ["-c", "command -v wrk"], { encoding: "utf8" }).stdout.trim();
  let path = which();
  if (path) return path;
  if (process.getuid?.() === 0) {
    process.stderr.write("wrk not found; installing it with apt-get…\n");
    const install = () => spawnSync("apt-get", ["install", "-y", "wrk"], { stdio: "inherit" }).status === 0;
    // A fresh machine may have no package lists yet.
    if (!install()) {
      spawnSync("apt-get", ["update"], { stdio: "inherit" });
      install();
    }
    path = which();
  }
  if (!path) throw new Error("the HTTP benchmarks need wrk (Debian: apt-get install wrk)");
  return path;
}

export type WrkResult = {
  requests: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  errors: number;
  non2xx: number;
};

/** A measured run: wrk's figures and the CPU the server spent on them. */
export type LoadResult = WrkResult & {
  /** The server process's CPU time (user + system, all threads) per request answered. */
  cpuUsPerRequest: number;
  /** The server's CPU seconds over the run's wall seconds: 1 is one core kept busy. */
  cpuCores: number;
};

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/**
 * CPU seconds `pid` has used so far, user and system, over all its threads, as the kernel
 * counts them (/proc/PID/stat, fields 14 and 15), so the figure includes what the server's
 * runtime does beside JavaScript: the HTTP parser, the garbage collector, PGlite's WASM.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) is in parentheses and may contain spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** One id per benchmark process: the keys of `repeated` workloads stay the same across its runs. */
const BENCH_RUN = crypto.randomUUID();

/**
 * The Lua script that rotates over keys and bodies (GETs when there are none), with the
 * workload's `Idempotency-Key`s, and prints one parsable result line.
 */
function wrkScript(
  keys: string[],
  bodies: string[],
  idempotency: Workload["idempotency"],
  route: { method?: string; paths?: string[] } = {},
): string {
  return `
local keys = { ${keys.map((k) => JSON.stringify(k)).join(", ")} }
local bodies = { ${bodies.map((b) => `[==[${b}]==]`).join(", ")} }
local paths = { ${(route.paths ?? []).map((path) => JSON.stringify(path)).join(", ")} }
local method = ${JSON.stringify(route.method ?? "")}
local idempotency = ${JSON.stringify(idempotency ?? "none")}
local run = ${JSON.stringify(crypto.randomUUID())}
local bench = ${JSON.stringify(BENCH_RUN)}
local counter = 0
function setup(thread) thread:set("id", math.random(1, 1000000)) end
function init(args) counter = id or 0 end
function request()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json" }
  if #keys > 0 then headers["X-API-Key"] = keys[(counter % #keys) + 1] end
  local path = nil
  if #paths > 0 then path = paths[(counter % #paths) + 1] end
  if #bodies == 0 then return wrk.format(method ~= "" and method or "GET", path, headers, nil) end
  local body = (counter % #bodies) + 1
  -- new: a key no request used before. repeated: each API key sends one body under one key,
  -- the same in the warm-up and the measured run, so every measured request is a replay.
  if idempotency == "new" then headers["Idempotency-Key"] = run .. "-" .. (id or 0) .. "-" .. counter end
  if idempotency == "repeated" then
    body = ((counter % #keys) % #bodies) + 1
    headers["Idempotency-Key"] = bench .. "-repeated"
  end
  return wrk.format(method ~= "" and method or "POST", path, headers, bodies[body])
end
function done(summary, latency, requests)
  io.write(string.format('RESULT {"requests":%d,"us":%d,"p50":%d,"p99":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
`;
}

/**
 * Runs wrk with POSTs that rotate over `keys` (as X-API-Key), `bodies` (GETs when there are
 * none) and `paths`, or the requests of `method`, and reads back
 * throughput and latency percentiles. Asynchronous, so that servers living in this process
 * (the VIES fake) keep answering while wrk runs.
 */
export async function runWrk(
  wrk: string,
  url: string,
  options: {
    keys: string[];
    bodies: string[];
    idempotency?: Workload["idempotency"];
    method?: string;
    paths?: string[];
    connections: number;
    seconds: number;
    threads?: number;
  },
): Promise<WrkResult> {
  const scriptPath = join(tmpdir(), `bench-wrk-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(scriptPath, wrkScript(options.keys, options.bodies, options.idempotency, options));
  try {
    const child = Bun.spawn(
      [
        wrk,
        `-t${options.threads ?? 2}`,
        `-c${options.connections}`,
        `-d${options.seconds}s`,
        "--latency",
        "-s",
        scriptPath,
        url,
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    const killer = setTimeout(() => child.kill("SIGKILL"), (options.seconds + 30) * 1000);
    const [stdout, stderr] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    await child.exited;
    clearTimeout(killer);
    const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
    if (!line) throw new Error(`wrk failed: ${stdout}\n${stderr}`);
    const parsed = JSON.parse(line.slice(7)) as {
      requests: number;
      us: number;
      p50: number;
      p99: number;
      errors: number;
    };
    const seconds = parsed.us / 1e6;
    return {
      requests: parsed.requests,
      seconds,
      rps: parsed.requests / seconds,
      p50ms: parsed.p50 / 1000,
      p99ms: parsed.p99 / 1000,
      errors: parsed.errors,
      non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
    };
  } finally {
    rmSync(scriptPath, { force: true });
  }
}

/**
 * What a load run sends: POST bodies, rotated over (none for GETs), and `Idempotency-Key`s:
 * `new` for a key no request used before, `repeated` for one per body (replayed after its first);
 * `method` instead of POST or GET, and `paths` rotated over instead of the URL's.
 */
export type Workload = {
  name: string;
  bodies: string[];
  idempotency?: "new" | "repeated";
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  paths?: string[];
};

/** Where a load run goes: the URL, and the process that answers it. */
export type Target = { url: string; pid: number };

/** A warm-up run, then the measured run of `workload` with LOAD's settings. */
export async function measureWorkload(
  wrk: string,
  target: Target,
  keys: string[],
  workload: Workload,
  label: string,
): Promise<LoadResult> {
  const options = {
    keys,
    bodies: workload.bodies,
    idempotency: workload.idempotency,
    method: workload.method,
    paths: workload.paths,
    connections: LOAD.connections,
  };
  await runWrk(wrk, target.url, { ...options, seconds: LOAD.warmupSeconds });
  const cpuBefore = cpuSeconds(target.pid);
  const result = await runWrk(wrk, target.url, { ...options, seconds: LOAD.seconds });
  const cpu = cpuSeconds(target.pid) - cpuBefore;
  const measured: LoadResult = {
    ...result,
    cpuUsPerRequest: (cpu / result.requests) * 1e6,
    cpuCores: cpu / result.seconds,
  };
  process.stderr.write(
    `${label}, ${workload.name}: ${Math.round(result.rps)} req/s, p99 ${result.p99ms.toFixed(2)} ms, ` +
      `${measured.cpuUsPerRequest.toFixed(1)} µs CPU per request\n`,
  );
  return measured;
}

/** One measured row: where, what, and how it went. */
export type ThroughputRow = { server: string; workload: string; result: LoadResult };

/**
 * The throughput table: each row against the `bare` row and, when `reference` names a
 * workload, against that workload's row on the same server.
 */
export function throughputTable(rows: ThroughputRow[], bare: LoadResult, reference?: string): string {
  const percent = (value: number, base: number | undefined) =>
    base === undefined ? "—" : `${((value / base) * 100).toFixed(0)} %`;
  const headers = ["server", "workload", "requests/s", "p50 ms", "p99 ms", "vs bare"];
  if (reference !== undefined) headers.push(`vs ${reference}`);
  headers.push("CPU µs/request", "CPU vs bare", "CPU cores busy", "non-2xx", "errors");
  return table(
    headers,
    rows.map(({ server, workload, result }) => {
      const referenceRps = rows.find((row) => row.server === server && row.workload === reference)?.result
        .rps;
      return [
        server,
        workload,
        Math.round(result.rps).toLocaleString("en"),
        result.p50ms.toFixed(2),
        result.p99ms.toFixed(2),
        percent(result.rps, bare.rps),
        ...(reference === undefined ? [] : [percent(result.rps, referenceRps)]),
        result.cpuUsPerRequest.toFixed(1),
        `${(result.cpuUsPerRequest / bare.cpuUsPerRequest).toFixed(2)}×`,
        result.cpuCores.toFixed(2),
        result.non2xx,
        result.errors,
      ];
    }),
  );
}

/** A Markdown table. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const lines = [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

/**
 * A `/validate` of a number nobody asked for, every `everyMs`, with `key`, until `stop`, which
 * resolves with the latencies: what an interactive caller meets while background work runs.
 */
export function interactiveCalls(base: string, key: string, numbers: string[], everyMs: number) {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const sent = performance.now();
      const response = await fetch(`${base}/validate`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ vat: numbers[i % numbers.length] }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`interactive /validate: ${response.status}`);
      latencies.push(performance.now() - sent);
      await Bun.sleep(Math.max(0, everyMs - (performance.now() - sent)));
    }
  })();
  return {
    async stop(): Promise<number[]> {
      running = false;
      await loop;
      return latencies;
    },
  };
}
