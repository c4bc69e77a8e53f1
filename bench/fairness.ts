/**
 * Fair shares of the background workers (issue 21): another key's ordinary work alone, then
 * beside one key's pathological load on a member state that hangs — a 2,000-item batch of
 * German numbers for the batch worker, 10,000 German numbers watched for the monitors'
 * checker — and the ratio of the two times. VIES answers every other state after 300 ms, 4
 * calls per state at a time; Germany never answers (each attempt runs to VIES_TIMEOUT_MS). On
 * the embedded default, then on Postgres + Redis.
 */
import { startViesFake } from "../test/fakes/vies.ts";
import examples from "../test/fixtures/iban-examples.json" with { type: "json" };
import { createVatNumberSource, PREFIXES_BUT_DE } from "../test/support/synthetic-vat-numbers.ts";
import { type Deployment, forEachDeployment } from "./service.ts";

const HEALTHY = PREFIXES_BUT_DE;
const VIES_LATENCY_MS = 300;
const SLOTS_PER_STATE = 4;
/** Runs of the other key's work alone and beside the load; the median is reported. */
const RUNS = 3;
const IBANS = Object.values(examples as Record<string, string>).slice(0, 100);

type Row = { deployment: string; worker: string; load: string; work: string; alone: number; beside: number };

const fake = await startViesFake();
const rows: Row[] = [];
const numbers = createVatNumberSource();

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function call(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A batch from creation to completion. */
async function batchMs(base: string, key: string, items: unknown[]): Promise<number> {
  const started = performance.now();
  const { id } = (await call(base, key, "POST", "/batches", { items })) as { id: string };
  for (;;) {
    const batch = (await call(base, key, "GET", `/batches/${id}`)) as { status: string };
    if (batch.status === "completed") return performance.now() - started;
    await Bun.sleep(50);
  }
}

/** A key's new monitors, from the request to every first check answered. */
async function roundMs(base: string, key: string, vats: string[]): Promise<number> {
  const started = performance.now();
  const { monitors } = (await call(base, key, "POST", "/monitors", {
    items: vats.map((vat) => ({ vat })),
  })) as {
    monitors: { id: string }[];
  };
  const ids = new Set(monitors.map(({ id }) => id));
  for (;;) {
    const page = (await call(base, key, "GET", "/monitors?limit=1000")) as {
      monitors: { id: string; last_checked_at: string | null }[];
    };
    if (page.monitors.filter((m) => ids.has(m.id) && m.last_checked_at !== null).length === ids.size)
      return performance.now() - started;
    await Bun.sleep(50);
  }
}

/** The other key's batch: 8 new numbers of each healthy state and 100 IBANs, mixed. */
const smallBatch = () => {
  const vats = numbers.take(8 * HEALTHY.length, HEALTHY).map((vat) => ({ vat }));
  return vats.flatMap((vat, index) =>
    index % 3 === 0 && index / 3 < IBANS.length ? [vat, { iban: IBANS[index / 3] }] : [vat],
  );
};

/** `RUNS` runs of `work`, each with a key of its own; the median time. */
async function measure(keys: string[], work: (key: string) => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) times.push(await work(keys.pop() as string));
  return median(times);
}

await forEachDeployment({ VIES_BASE_URL: fake.baseUrl }, async (deployment: Deployment) => {
  fake.reset();
  fake.setLatency(VIES_LATENCY_MS);
  fake.setConcurrencyLimit("*", SLOTS_PER_STATE);
  fake.setBehaviour("DE", { kind: "hang" });
  const base = `http://127.0.0.1:${deployment.port}`;
  const keys = [...deployment.keys];
  const heavy = keys.pop() as string;
  const watcher = keys.pop() as string;
  const batch = (key: string) => batchMs(base, key, smallBatch());
  const round = (key: string) => roundMs(base, key, numbers.take(4 * HEALTHY.length, HEALTHY));
  // Warm-up: the first runs of a process are slower (compilation, the tables' first pages).
  await batch(keys.pop() as string);
  await round(keys.pop() as string);

  const batchAlone = await measure(keys, batch);
  const { id } = (await call(base, heavy, "POST", "/batches", {
    items: numbers.take(2000, ["DE"]).map((vat) => ({ vat })),
  })) as { id: string };
  await Bun.sleep(1000);
  const batchBeside = await measure(keys, batch);
  await call(base, heavy, "DELETE", `/batches/${id}`);
  rows.push({
    deployment: deployment.name,
    worker: "batch items",
    load: "a batch of 2,000 DE items",
    work: `a batch of ${8 * HEALTHY.length} VAT items over ${HEALTHY.length} states and ${IBANS.length} IBANs`,
    alone: batchAlone,
    beside: batchBeside,
  });

  const roundAlone = await measure(keys, round);
  await call(base, watcher, "POST", "/monitors", {
    items: numbers.take(10_000, ["DE"]).map((vat) => ({ vat })),
  });
  await Bun.sleep(1000);
  const roundBeside = await measure(keys, round);
  rows.push({
    deployment: deployment.name,
    worker: "monitors' checks",
    load: "10,000 DE monitors, all due",
    work: `${4 * HEALTHY.length} new monitors over ${HEALTHY.length} states, each answered`,
    alone: roundAlone,
    beside: roundBeside,
  });
});
await fake.stop();

console.log(
  `\nAnother key's work alone and beside one key's load on Germany, which never answers; VIES ${VIES_LATENCY_MS} ms per call for the other states, ${SLOTS_PER_STATE} calls per state at a time; median of ${RUNS} runs\n`,
);
console.log(
  "| deployment | worker | load of one key | work of another key | alone | beside the load | ratio |",
);
console.log("| --- | --- | --- | --- | ---: | ---: | ---: |");
for (const row of rows) {
  console.log(
    `| ${row.deployment} | ${row.worker} | ${row.load} | ${row.work} | ${Math.round(row.alone)} ms | ${Math.round(row.beside)} ms | ×${(row.beside / row.alone).toFixed(2)} |`,
  );
}
