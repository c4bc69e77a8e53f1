import { spawnSync } from "node:child_process";

/** A child process serving HTTP on `port`. */
export type RunningServer = { port: number; stop(): Promise<void> };

/** A port that was free a moment ago. */
export function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

/** Starts `command` with PORT set and waits until `readyPath` answers. */
export async function startServer(
  command: string[],
  env: Record<string, string>,
  readyPath = "/health",
): Promise<RunningServer> {
  const port = freePort();
  const child = Bun.spawn(command, {
    env: { ...process.env, ...env, PORT: String(port) },
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
    spawnSync("apt-get", ["install", "-y", "wrk"], { stdio: "inherit" });
    path = which();
  }
  if (!path) throw new Error("the HTTP benchmark needs wrk (Debian: apt-get install wrk)");
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

/**
 * Runs wrk with a Lua script that rotates over `keys` and `bodies`, and reads back
 * throughput and latency percentiles.
 */
export function runWrk(
  wrk: string,
  url: string,
  options: { keys: string[]; bodies: string[]; connections: number; seconds: number; threads?: number },
): WrkResult {
  const script = `
local keys = { ${options.keys.map((k) => JSON.stringify(k)).join(", ")} }
local bodies = { ${options.bodies.map((b) => `[==[${b}]==]`).join(", ")} }
local counter = 0
local non2xx = 0
function setup(thread) thread:set("id", math.random(1, 1000000)) end
function init(args) counter = id or 0 end
function request()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json" }
  if #keys > 0 then headers["X-API-Key"] = keys[(counter % #keys) + 1] end
  return wrk.format("POST", nil, headers, bodies[(counter % #bodies) + 1])
end
function response(status) if status < 200 or status > 299 then non2xx = non2xx + 1 end end
function done(summary, latency, requests)
  io.write(string.format('RESULT {"requests":%d,"us":%d,"p50":%d,"p99":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout + summary.errors.status))
end
`;
  const scriptPath = `${process.env.TMPDIR ?? "/tmp"}/bench-wrk-${process.pid}-${Math.random().toString(36).slice(2)}.lua`;
  Bun.write(scriptPath, script);
  const run = spawnSync(
    wrk,
    [
      `-t${options.threads ?? 2}`,
      `-c${options.connections}`,
      `-d${options.seconds}s`,
      "--latency",
      "-s",
      scriptPath,
      url,
    ],
    { encoding: "utf8", timeout: (options.seconds + 30) * 1000 },
  );
  const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`wrk failed: ${run.stdout}\n${run.stderr}`);
  const parsed = JSON.parse(line.slice(7)) as {
    requests: number;
    us: number;
    p50: number;
    p99: number;
    errors: number;
  };
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(run.stdout)?.[1] ?? 0);
  const seconds = parsed.us / 1e6;
  return {
    requests: parsed.requests,
    seconds,
    rps: parsed.requests / seconds,
    p50ms: parsed.p50 / 1000,
    p99ms: parsed.p99 / 1000,
    errors: parsed.errors,
    non2xx,
  };
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const lines = [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}
