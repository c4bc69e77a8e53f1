/**
 * Monitors at scale, against a VIES that takes 300 ms per call and allows 4 calls per member
 * state at a time. For each deployment: the time to schedule 10,000 numbers (one POST
 * /monitors of 10,000, each due at once) and to run that round of 10,000 due checks, next to the
 * bound the cap sets (ceil(checks per state / 4) × 300 ms); interactive /validate calls of new
 * numbers meanwhile (monitors go last for a slot); then 90,000 more numbers (100,000 in all)
 * answered by a VIES without latency or cap, and the service's memory all along.
 */
import { startViesFake } from "../test/fakes/vies.ts";
import { rssKbOf } from "../test/support/service.ts";
import { type BenchPrefix, createVatNumberSource } from "../test/support/synthetic-vat-numbers.ts";
import { percentile } from "../test/support/traffic.ts";
import { type Deployment, forEachDeployment } from "./service.ts";
import { interactiveCalls } from "./support.ts";

const ROUND = 10_000;
const TOTAL = 100_000;
const PER_REQUEST = 10_000;
const STATES: BenchPrefix[] = ["NL", "DE", "BE", "DK", "FI", "HU", "PL", "EE", "LU", "SI"];
const VIES_LATENCY_MS = 300;
const SLOTS_PER_STATE = 4;
const INTERACTIVE_EVERY_MS = 250;
const METRICS_TOKEN = "bench-monitors";

const rssMiB = (pid: number) => Math.round((rssKbOf(pid) ?? 0) / 1024);

type Row = {
  deployment: string;
  scheduleSeconds: number;
  roundSeconds: number;
  boundSeconds: number;
  interactive: { count: number; p50: number; p99: number; max: number };
  maxInFlight: number;
  scale: { seconds: number; checked: number };
  rssMiB: { before: number; afterRound: number; peak: number; after: number };
};

const fake = await startViesFake();
const rows: Row[] = [];
const numbers = createVatNumberSource();

/** Checks this instance answered so far, from its metrics. */
async function answered(base: string): Promise<number> {
  const text = await (
    await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  return Number(/^monitor_checks_total\{outcome="answered"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

async function watch(base: string, key: string, vats: string[]): Promise<void> {
  for (let start = 0; start < vats.length; start += PER_REQUEST) {
    const response = await fetch(`${base}/monitors`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ items: vats.slice(start, start + PER_REQUEST).map((vat) => ({ vat })) }),
    });
    await response.arrayBuffer();
    if (response.status !== 201) throw new Error(`POST /monitors: ${response.status}`);
  }
}

await forEachDeployment({ VIES_BASE_URL: fake.baseUrl, METRICS_TOKEN }, async (deployment: Deployment) => {
  fake.reset();
  fake.setLatency(VIES_LATENCY_MS);
  fake.setConcurrencyLimit("*", SLOTS_PER_STATE);
  const base = `http://127.0.0.1:${deployment.port}`;
  const [key, interactiveKey] = deployment.keys as [string, string];
  const before = rssMiB(deployment.pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(deployment.pid));
  }, 200);

  const scheduled = performance.now();
  await watch(base, key, numbers.take(ROUND, STATES));
  const scheduleSeconds = (performance.now() - scheduled) / 1000;

  const interactive = interactiveCalls(
    base,
    interactiveKey,
    numbers.take(1000, STATES),
    INTERACTIVE_EVERY_MS,
  );
  while ((await answered(base)) < ROUND) await Bun.sleep(200);
  const roundSeconds = (performance.now() - scheduled) / 1000;
  const latencies = await interactive.stop();
  const afterRound = rssMiB(deployment.pid);
  const maxInFlight = Math.max(...Object.values(fake.calls.maxInFlight));

  // 90,000 more, answered at once: what 100,000 watched numbers cost in memory.
  fake.setLatency(0);
  fake.setConcurrencyLimit("*", null);
  const scaled = performance.now();
  await watch(base, key, numbers.take(TOTAL - ROUND, STATES));
  while ((await answered(base)) < TOTAL) await Bun.sleep(500);
  const scale = { seconds: (performance.now() - scaled) / 1000, checked: await answered(base) };
  clearInterval(sampler);
  rows.push({
    deployment: deployment.name,
    scheduleSeconds,
    roundSeconds,
    boundSeconds: (Math.ceil(ROUND / STATES.length / SLOTS_PER_STATE) * VIES_LATENCY_MS) / 1000,
    interactive: {
      count: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: Math.max(...latencies),
    },
    maxInFlight,
    scale,
    rssMiB: {
      before,
      afterRound,
      peak: Math.max(peak, rssMiB(deployment.pid)),
      after: rssMiB(deployment.pid),
    },
  });
});
await fake.stop();

const fixed = (value: number, digits = 1) => value.toFixed(digits);
console.log(
  `\n${ROUND} numbers watched at once over ${STATES.length} member states; VIES ${VIES_LATENCY_MS} ms per call, ${SLOTS_PER_STATE} calls per state at a time; then ${TOTAL - ROUND} more answered without latency\n`,
);
console.log(
  "| deployment | schedule 10,000 | round of 10,000 checks | bound | ratio | interactive /validate during it (n, p50 / p99 / max) | most in flight per state | 90,000 more, checked | RSS before → after round → peak → after 100,000 |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) {
  console.log(
    `| ${row.deployment} | ${fixed(row.scheduleSeconds)} s | ${fixed(row.roundSeconds)} s | ${fixed(row.boundSeconds)} s | ${fixed(row.roundSeconds / row.boundSeconds, 2)} | ${row.interactive.count}, ${fixed(row.interactive.p50, 0)} / ${fixed(row.interactive.p99, 0)} / ${fixed(row.interactive.max, 0)} ms | ${row.maxInFlight} | ${fixed(row.scale.seconds)} s (${row.scale.checked} answered) | ${row.rssMiB.before} → ${row.rssMiB.afterRound} → ${row.rssMiB.peak} → ${row.rssMiB.after} MiB |`,
  );
}
