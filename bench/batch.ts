/**
 * A 10,000-item batch against a VIES that takes 300 ms per call and allows 4 calls per member
 * state at a time: how long it takes next to the bound that cap sets (ceil(VAT items per
 * state / 4) × 300 ms), how long interactive /validate calls of new numbers take while it runs,
 * and the service's memory before and after. On the embedded default, then on Postgres + Redis.
 */
import { startViesFake } from "../test/fakes/vies.ts";
import examples from "../test/fixtures/iban-examples.json" with { type: "json" };
import { prng } from "../test/support/prng.ts";
import { rssKbOf } from "../test/support/service.ts";
import { type BenchPrefix, createVatNumberSource } from "../test/support/synthetic-vat-numbers.ts";
import { percentile } from "../test/support/traffic.ts";
import { type Deployment, forEachDeployment } from "./service.ts";
import { interactiveCalls } from "./support.ts";

const ITEMS = 10_000;
const VAT_SHARE = 0.7;
const STATES: BenchPrefix[] = ["NL", "DE", "BE", "DK", "FI", "HU", "PL", "EE", "LU", "SI"];
const VIES_LATENCY_MS = 300;
const SLOTS_PER_STATE = 4;
/** How often an interactive /validate of a number nobody asked for is sent while the batch runs. */
const INTERACTIVE_EVERY_MS = 250;

const IBANS = Object.values(examples as Record<string, string>);

const rssMiB = (pid: number) => Math.round((rssKbOf(pid) ?? 0) / 1024);

type Row = {
  deployment: string;
  items: number;
  seconds: number;
  boundSeconds: number;
  interactive: { count: number; p50: number; p99: number; max: number };
  viesCalls: number;
  maxInFlight: number;
  rssMiB: { before: number; after: number };
};

const fake = await startViesFake();
const rows: Row[] = [];
const numbers = createVatNumberSource();

await forEachDeployment({ VIES_BASE_URL: fake.baseUrl }, async (deployment: Deployment) => {
  fake.reset();
  fake.setLatency(VIES_LATENCY_MS);
  fake.setConcurrencyLimit("*", SLOTS_PER_STATE);
  const random = prng(2026);
  const vatCount = Math.round(ITEMS * VAT_SHARE);
  const vats = numbers.take(vatCount, STATES);
  const items = [
    ...vats.map((vat) => ({ vat })),
    ...Array.from({ length: ITEMS - vatCount }, () => ({ iban: random.pick(IBANS) })),
  ];
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [items[i], items[j]] = [items[j] as (typeof items)[number], items[i] as (typeof items)[number]];
  }
  const base = `http://127.0.0.1:${deployment.port}`;
  const [batchKey, interactiveKey] = deployment.keys as [string, string];
  const before = rssMiB(deployment.pid);

  const started = performance.now();
  const created = await fetch(`${base}/batches`, {
    method: "POST",
    headers: { "x-api-key": batchKey, "content-type": "application/json" },
    body: JSON.stringify({ items }),
  });
  if (created.status !== 202) throw new Error(`POST /batches: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };

  const interactive = interactiveCalls(
    base,
    interactiveKey,
    numbers.take(1000, STATES),
    INTERACTIVE_EVERY_MS,
  );

  let batch: { status: string; counts: { done: number; failed: number } };
  for (;;) {
    batch = (await (
      await fetch(`${base}/batches/${id}`, { headers: { "x-api-key": batchKey } })
    ).json()) as typeof batch;
    if (batch.status === "completed") break;
    await Bun.sleep(200);
  }
  const seconds = (performance.now() - started) / 1000;
  const latencies = await interactive.stop();
  if (batch.counts.done !== ITEMS) throw new Error(`the batch finished with ${JSON.stringify(batch.counts)}`);
  const perState = vatCount / STATES.length;
  rows.push({
    deployment: deployment.name,
    items: ITEMS,
    seconds,
    boundSeconds: (Math.ceil(perState / SLOTS_PER_STATE) * VIES_LATENCY_MS) / 1000,
    interactive: {
      count: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: Math.max(...latencies),
    },
    viesCalls: fake.calls.total,
    maxInFlight: Math.max(...Object.values(fake.calls.maxInFlight)),
    rssMiB: { before, after: rssMiB(deployment.pid) },
  });
});
await fake.stop();

const fixed = (value: number, digits = 1) => value.toFixed(digits);
console.log(
  `\n${ITEMS} items (${VAT_SHARE * 100} % VAT over ${STATES.length} member states, the rest IBANs); VIES ${VIES_LATENCY_MS} ms per call, ${SLOTS_PER_STATE} calls per state at a time\n`,
);
console.log(
  "| deployment | completed in | bound | ratio | interactive /validate during it (n, p50 / p99 / max) | VIES calls | most in flight per state | RSS before → after |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) {
  console.log(
    `| ${row.deployment} | ${fixed(row.seconds)} s | ${fixed(row.boundSeconds)} s | ${fixed(row.seconds / row.boundSeconds, 2)} | ${row.interactive.count}, ${fixed(row.interactive.p50, 0)} / ${fixed(row.interactive.p99, 0)} / ${fixed(row.interactive.max, 0)} ms | ${row.viesCalls} | ${row.maxInFlight} | ${row.rssMiB.before} → ${row.rssMiB.after} MiB |`,
  );
}
