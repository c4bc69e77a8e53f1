/**
 * VAT over HTTP, against the VIES fake started in this process, for the embedded default and
 * for Postgres + Redis (when reachable):
 *
 * 1. Throughput of cached VAT answers: 300 numbers validated once to fill the cache, then wrk
 *    over them with 1,000 keys, beside the bare endpoint and the IBAN path of the same run; and
 *    the same with a `match` of name, street, postcode and city (matched here against the cache).
 * 2. Coalescing: bursts of simultaneous requests for numbers nobody asked for before, with
 *    VIES answering in 300 ms; client requests against the calls VIES received, latency, and
 *    the most calls per member state that VIES saw at once.
 *
 * Run with `npm run bench:vat`.
 */
import { startViesFake, type ViesFake } from "../test/fakes/vies.ts";
import {
  type BenchPrefix,
  createVatNumberSource,
  type VatNumberSource,
} from "../test/support/synthetic-vat-numbers.ts";
import { percentile } from "../test/support/traffic.ts";
import { IBAN_WORKLOAD, measureBare } from "./http.ts";
import { type Deployment, forEachDeployment, KEY_COUNT } from "./service.ts";
import {
  findWrk,
  LOAD,
  measureWorkload,
  type ThroughputRow,
  table,
  throughputTable,
  type Workload,
} from "./support.ts";

const CACHED_NUMBERS = 300;
const VIES_LATENCY_MS = 300;
const MAX_CONCURRENT_PER_STATE = 4;
const WARM_CONCURRENCY = 16;

/** Bursts of simultaneous requests, each round for numbers new to the service. */
type Burst = {
  name: string;
  prefixes: BenchPrefix[];
  numbers: number;
  requestsPerNumber: number;
  rounds: number;
};

const BURSTS: Burst[] = [
  {
    name: "8 new numbers (NL, DE, BE) × 25 requests at once",
    prefixes: ["NL", "DE", "BE"],
    numbers: 8,
    requestsPerNumber: 25,
    rounds: 5,
  },
  {
    name: "16 new NL numbers × 6 requests at once",
    prefixes: ["NL"],
    numbers: 16,
    requestsPerNumber: 6,
    rounds: 3,
  },
];

type Answer = { ms: number; cached: boolean };

async function validateVat(port: number, key: string, vat: string): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}/validate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ vat }),
  });
  const body = (await response.json()) as { vat?: { cached: boolean; valid: boolean | null } };
  const ms = performance.now() - started;
  if (response.status !== 200 || body.vat?.valid !== true) {
    throw new Error(`${vat}: HTTP ${response.status} ${JSON.stringify(body)}`);
  }
  return { ms, cached: body.vat.cached };
}

/** Registers the numbers with the fake as valid, the way VIES answers for registered businesses. */
function register(fake: ViesFake, numbers: string[]): void {
  for (const vat of numbers) {
    fake.addNumber(vat.slice(0, 2), vat.slice(2), {
      valid: true,
      name: `BENCH ${vat}`,
      address: "1 BENCH STREET\n1000 BENCHTOWN",
    });
  }
}

/** Validates every number once, a few at a time, so that the cache holds them all. */
async function warmCache(deployment: Deployment, fake: ViesFake, numbers: string[]): Promise<void> {
  const before = fake.calls.total;
  let next = 0;
  const worker = async () => {
    while (next < numbers.length) {
      const index = next++;
      await validateVat(
        deployment.port,
        deployment.keys[index % KEY_COUNT] as string,
        numbers[index] as string,
      );
    }
  };
  await Promise.all(Array.from({ length: WARM_CONCURRENCY }, worker));
  const calls = fake.calls.total - before;
  if (calls !== numbers.length) throw new Error(`warming ${numbers.length} numbers took ${calls} VIES calls`);
}

type BurstRow = {
  server: string;
  burst: string;
  requests: number;
  numbers: number;
  upstreamCalls: number;
  cachedAnswers: number;
  p50ms: number;
  p99ms: number;
  maxInFlight: Record<string, number>;
};

async function runBurst(
  deployment: Deployment,
  fake: ViesFake,
  burst: Burst,
  source: VatNumberSource,
): Promise<BurstRow> {
  fake.reset();
  fake.setLatency(VIES_LATENCY_MS);
  // VIES's own per-state limit: a call over it would come back as a fault and fail the run.
  fake.setConcurrencyLimit("*", MAX_CONCURRENT_PER_STATE);
  const answers: Answer[] = [];
  let keyIndex = 0;
  for (let round = 0; round < burst.rounds; round++) {
    const numbers = source.take(burst.numbers, burst.prefixes);
    register(fake, numbers);
    const requests = numbers.length * burst.requestsPerNumber;
    // Request i asks for number i mod n, so the duplicates of each number arrive spread out.
    const answered = await Promise.all(
      Array.from({ length: requests }, (_, i) =>
        validateVat(
          deployment.port,
          deployment.keys[keyIndex++ % KEY_COUNT] as string,
          numbers[i % numbers.length] as string,
        ),
      ),
    );
    answers.push(...answered);
  }
  const latencies = answers.map((answer) => answer.ms);
  const row: BurstRow = {
    server: deployment.name,
    burst: `${burst.rounds} rounds of ${burst.name}`,
    requests: answers.length,
    numbers: burst.numbers * burst.rounds,
    upstreamCalls: fake.calls.total,
    cachedAnswers: answers.filter((answer) => answer.cached).length,
    p50ms: percentile(latencies, 50),
    p99ms: percentile(latencies, 99),
    maxInFlight: { ...fake.calls.maxInFlight },
  };
  process.stderr.write(
    `${deployment.name}, ${burst.name}: ${row.requests} requests, ${row.upstreamCalls} VIES calls, p99 ${row.p99ms.toFixed(0)} ms\n`,
  );
  return row;
}

function burstTable(rows: BurstRow[]): string {
  return table(
    [
      "server",
      "burst",
      "client requests",
      "numbers",
      "VIES calls",
      "calls saved",
      "cache hits",
      "p50 ms",
      "p99 ms",
      `most VIES calls at once per state (limit ${MAX_CONCURRENT_PER_STATE})`,
    ],
    rows.map((row) => [
      row.server,
      row.burst,
      row.requests,
      row.numbers,
      row.upstreamCalls,
      `${(((row.requests - row.upstreamCalls) / row.requests) * 100).toFixed(1)} %`,
      row.cachedAnswers,
      row.p50ms.toFixed(0),
      row.p99ms.toFixed(0),
      Object.entries(row.maxInFlight)
        .map(([state, most]) => `${state} ${most}`)
        .join(", "),
    ]),
  );
}

async function main(): Promise<void> {
  const wrk = findWrk();
  const fake = await startViesFake();
  const source = createVatNumberSource();
  const env = {
    VIES_BASE_URL: fake.baseUrl,
    VIES_MAX_CONCURRENT_PER_STATE: String(MAX_CONCURRENT_PER_STATE),
    // Short enough that the entries a run leaves in Redis are gone within the hour.
    VAT_CACHE_TTL_SECONDS: "3600",
    VAT_LKG_TTL_SECONDS: "3600",
  };
  try {
    const bare = await measureBare(wrk);
    const rows: ThroughputRow[] = [
      { server: "bare Elysia POST (body schema, no work)", workload: "IBAN", result: bare },
    ];
    const bursts: BurstRow[] = [];
    const cachedLoadCalls: string[] = [];
    await forEachDeployment(env, async (deployment) => {
      fake.reset();
      const numbers = source.take(CACHED_NUMBERS, ["NL", "DE", "BE"]);
      register(fake, numbers);
      await warmCache(deployment, fake, numbers);
      const target = { url: `http://127.0.0.1:${deployment.port}/validate`, pid: deployment.pid };
      const vatWorkload: Workload = {
        name: "VAT, cached",
        bodies: numbers.map((vat) => JSON.stringify({ vat })),
      };
      const matchWorkload: Workload = {
        name: "VAT, cached, with match",
        bodies: numbers.map((vat) =>
          JSON.stringify({
            vat,
            match: {
              name: `Bench ${vat} B.V.`,
              street: "Bench Street 1",
              postcode: "1000",
              city: "Benchtown",
            },
          }),
        ),
      };
      for (const workload of [IBAN_WORKLOAD, vatWorkload, matchWorkload]) {
        const before = fake.calls.total;
        const result = await measureWorkload(wrk, target, deployment.keys, workload, deployment.name);
        rows.push({ server: deployment.name, workload: workload.name, result });
        if (workload !== IBAN_WORKLOAD) {
          cachedLoadCalls.push(`${deployment.name}, ${workload.name}: ${fake.calls.total - before}`);
        }
      }
      for (const burst of BURSTS) bursts.push(await runBurst(deployment, fake, burst, source));
    });
    process.stdout.write(
      `\nVAT benchmark, cached answers: ${LOAD.connections} connections, ${LOAD.seconds} s, wrk, ${KEY_COUNT} keys, ` +
        `${CACHED_NUMBERS} VAT numbers validated once before the load\n\n`,
    );
    process.stdout.write(`${throughputTable(rows, bare, "IBAN")}\n\n`);
    process.stdout.write(`VIES calls during the cached-VAT load: ${cachedLoadCalls.join("; ")}\n`);
    process.stdout.write(
      `\nVAT benchmark, coalescing: VIES fake answering in ${VIES_LATENCY_MS} ms, ` +
        `VIES_MAX_CONCURRENT_PER_STATE=${MAX_CONCURRENT_PER_STATE}, every number new to the service\n\n`,
    );
    process.stdout.write(`${burstTable(bursts)}\n`);
  } finally {
    await fake.stop();
  }
}

if (import.meta.main) await main();
