/**
 * Sustained mixed load against the service as a real process: billable IBANs, cached VAT
 * numbers, fresh VAT numbers answered by the VIES fake with a realistic latency, and
 * malformed input, from many concurrent client loops for a fixed time. Reports throughput,
 * p50/p99 per kind, unexpected answers, and the server's memory (RSS) before and after;
 * exits 1 when there were unexpected answers or memory grew past the bound.
 *
 *   bun bench/load.ts                    # embedded default (PGlite + in-process cache)
 *   DATABASE_URL=… REDIS_URL=… bun bench/load.ts   # and the same on Postgres + Redis
 *
 * Settings: LOAD_SECONDS (30), LOAD_LOOPS (64), LOAD_VIES_LATENCY_MS (300), LOAD_SEED,
 * LOAD_LOG_LEVEL (info: one request line each, as in production), LOAD_MIX (relative
 * weights, default `iban=5,vat_cached=3,vat_fresh=1,bad=1`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startViesFake } from "../test/fakes/vies.ts";
import { CACHED_VAT } from "../test/support/fault-rig.ts";
import { seedFrom } from "../test/support/prng.ts";
import { BUN, type ServiceProcess, serviceProcess, stopAllServices } from "../test/support/service.ts";
import { type Answer, KINDS, type Kind, startTraffic, summarize } from "../test/support/traffic.ts";

const SECONDS = Number(process.env.LOAD_SECONDS ?? 30);
const LOOPS = Number(process.env.LOAD_LOOPS ?? 64);
const VIES_LATENCY_MS = Number(process.env.LOAD_VIES_LATENCY_MS ?? 300);
const LOG_LEVEL = process.env.LOAD_LOG_LEVEL ?? "info";
const SEED = seedFrom("LOAD_SEED");
const WARMUP_SECONDS = 3;
const KEYS = 8;
const WEIGHTS = parseMix(process.env.LOAD_MIX ?? "iban=5,vat_cached=3,vat_fresh=1,bad=1");
/** Memory may grow by half its size after warm-up, or by 100 MiB, whichever is more. */
const GROWTH_FACTOR = 0.5;
const GROWTH_FLOOR_KB = 100 * 1024;
/** What each kind is expected to get; anything else counts as an error. */
const EXPECTED: Record<Kind, number[]> = { iban: [200], vat_cached: [200], vat_fresh: [200], bad: [400] };

function parseMix(text: string): Partial<Record<Kind, number>> {
  const weights: Partial<Record<Kind, number>> = {};
  for (const part of text.split(",")) {
    const [kind, weight] = part.split("=");
    if (!KINDS.includes(kind as Kind) || !(Number(weight) >= 0)) {
      throw new Error(`LOAD_MIX: "${part}" is not kind=weight with kind one of ${KINDS.join(", ")}`);
    }
    weights[kind as Kind] = Number(weight);
  }
  return weights;
}

type Report = {
  target: string;
  seconds: number;
  requests: number;
  rps: number;
  kinds: Record<
    Kind,
    { count: number; rps: number; p50: number; p99: number; outcomes: Record<string, number> }
  >;
  errors: number;
  errorSamples: string[];
  rssKb: { start: number | null; end: number | null; peak: number };
  memoryOk: boolean;
};

async function createKeys(service: ServiceProcess): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const child = Bun.spawn(
      [BUN, "src/cli/keys.ts", "create", "--plan", "pro", "--quota", "1000000000", "--rate", "1000000000"],
      { env: service.env, stdout: "pipe", stderr: "pipe" },
    );
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    if (code !== 0)
      throw new Error(`keys create failed (${code}): ${await new Response(child.stderr).text()}`);
    keys.push((JSON.parse(stdout) as { api_key: string }).api_key);
  }
  return keys;
}

async function measure(target: string, settings: Record<string, string>): Promise<Report> {
  const vies = await startViesFake();
  vies.setLatency(VIES_LATENCY_MS);
  const dataDir = mkdtempSync(join(tmpdir(), "load-"));
  try {
    const service = serviceProcess({
      ...settings,
      DATA_DIR: dataDir,
      VIES_BASE_URL: vies.baseUrl,
      LOG_LEVEL,
      STORE_KEY_PREFIX: `load:${crypto.randomUUID()}:`,
    });
    await service.start();
    const keys = await createKeys(service);
    const options = { url: service.url, keys, loops: LOOPS, weights: WEIGHTS, cachedVat: CACHED_VAT };

    // Warm-up: the cached numbers get cached, the runtime compiles its hot paths.
    const warmup = startTraffic({ ...options, seed: SEED ^ 0xa5a5 });
    await Bun.sleep(WARMUP_SECONDS * 1000);
    await warmup.stop();

    const start = service.rssKb();
    let peak = start ?? 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, service.rssKb() ?? 0);
    }, 1000);
    const traffic = startTraffic({ ...options, seed: SEED });
    await Bun.sleep(SECONDS * 1000);
    await traffic.stop();
    clearInterval(sampler);
    const seconds = traffic.elapsed() / 1000;
    const end = service.rssKb();
    peak = Math.max(peak, end ?? 0);
    if (service.pid() === null) throw new Error(`the service died under load:\n${service.tail()}`);
    await service.stop();

    const summary = summarize(traffic.answers);
    const unexpected = traffic.answers.filter(
      (answer: Answer) => !EXPECTED[answer.kind].includes(answer.status) || answer.problem !== null,
    );
    const growth = start !== null && end !== null ? end - start : 0;
    return {
      target,
      seconds,
      requests: traffic.answers.length,
      rps: traffic.answers.length / seconds,
      kinds: Object.fromEntries(
        KINDS.map((kind) => [
          kind,
          {
            count: summary[kind].count,
            rps: summary[kind].count / seconds,
            p50: summary[kind].p50,
            p99: summary[kind].p99,
            outcomes: summary[kind].outcomes,
          },
        ]),
      ) as Report["kinds"],
      errors: unexpected.length,
      errorSamples: unexpected
        .slice(0, 5)
        .map(
          (answer) =>
            `${answer.kind} ${answer.status} ${answer.code ?? ""} ${answer.problem ?? answer.message ?? ""}`,
        ),
      rssKb: { start, end, peak },
      memoryOk: growth < Math.max(GROWTH_FLOOR_KB, (start ?? 0) * GROWTH_FACTOR),
    };
  } finally {
    await stopAllServices();
    await vies.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const mb = (kb: number | null) => (kb === null ? "?" : `${(kb / 1024).toFixed(0)} MiB`);

function print(report: Report): void {
  const lines = [
    `\n${report.target}: ${report.requests} requests in ${report.seconds.toFixed(1)} s = ${report.rps.toFixed(0)} req/s (${LOOPS} loops, mix ${JSON.stringify(WEIGHTS)}, VIES latency ${VIES_LATENCY_MS} ms, seed ${SEED})`,
    "| kind       |  count |  req/s | p50 ms | p99 ms | outcomes",
    "| ---------- | -----: | -----: | -----: | -----: | --------",
    ...KINDS.filter((kind) => report.kinds[kind].count > 0).map((kind) => {
      const k = report.kinds[kind];
      return `| ${kind.padEnd(10)} | ${String(k.count).padStart(6)} | ${k.rps.toFixed(0).padStart(6)} | ${k.p50.toFixed(1).padStart(6)} | ${k.p99.toFixed(1).padStart(6)} | ${JSON.stringify(k.outcomes)}`;
    }),
    `unexpected answers: ${report.errors}${report.errorSamples.length ? ` (e.g. ${report.errorSamples.join("; ")})` : ""}`,
    `server RSS: ${mb(report.rssKb.start)} after warm-up, ${mb(report.rssKb.end)} at the end, peak ${mb(report.rssKb.peak)}${report.memoryOk ? "" : "  <-- GREW PAST THE BOUND"}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

const targets: [string, Record<string, string>][] = [["embedded (PGlite + in-process cache)", {}]];
if (process.env.DATABASE_URL) {
  targets.push([
    `Postgres${process.env.REDIS_URL ? " + Redis" : ""}`,
    {
      DATABASE_URL: process.env.DATABASE_URL,
      ...(process.env.REDIS_URL && { REDIS_URL: process.env.REDIS_URL }),
    },
  ]);
}

let failed = false;
for (const [target, settings] of targets) {
  const report = await measure(target, settings);
  print(report);
  process.stdout.write(`${JSON.stringify(report)}\n`);
  failed ||= report.errors > 0 || !report.memoryOk;
}
process.exit(failed ? 1 : 0);
