/**
 * HTTP load: authenticated, billable POST /validate (IBAN) spread over 1,000 keys — plain,
 * with a new `Idempotency-Key` each, and replayed under their keys — POST /iban/build, the
 * console's page, and every monitor route, against the embedded default and against real
 * Postgres + Redis, beside a bare Elysia POST in the same run. Run with `npm run bench:http`; set
 * DATABASE_URL and REDIS_URL for the second configuration (defaults: the local servers CI uses).
 */
import { startViesFake } from "../test/fakes/vies.ts";
import buildExamples from "../test/fixtures/iban-build-examples.json" with { type: "json" };
import examples from "../test/fixtures/iban-examples.json" with { type: "json" };
import { createVatNumberSource } from "../test/support/synthetic-vat-numbers.ts";
import { forEachDeployment, KEY_COUNT, startBare } from "./service.ts";
import {
  findWrk,
  LOAD,
  type LoadResult,
  measureWorkload,
  type ThroughputRow,
  throughputTable,
  type Workload,
} from "./support.ts";

/** The registry's example IBAN of every country: valid, so every request is billed. */
export const IBAN_WORKLOAD: Workload = {
  name: "IBAN",
  bodies: Object.values(examples as Record<string, string>).map((iban) => JSON.stringify({ iban })),
};

/** The same requests, each with an `Idempotency-Key` of its own: the cost of keeping every answer. */
export const IBAN_NEW_KEY: Workload = {
  ...IBAN_WORKLOAD,
  name: "IBAN, new Idempotency-Key",
  idempotency: "new",
};

/** The same requests repeated under their keys: every one a replay, billed nothing. */
export const IBAN_REPLAYED: Workload = {
  ...IBAN_WORKLOAD,
  name: "IBAN, replayed Idempotency-Key",
  idempotency: "repeated",
};

/** SWIFT's domestic account number examples of the 26 countries it describes that are built: each one billed. */
const IBAN_BUILD_WORKLOAD: Workload = {
  name: "POST /iban/build",
  bodies: buildExamples.examples.map(({ iban: _, note: __, ...request }) => JSON.stringify(request)),
};

/** The console's page (GET /console): a file of the service, served without a key. */
const CONSOLE_PAGE: Workload = { name: "GET /console (page, no key)", bodies: [] };

const MONITORED = 1000;

/**
 * The monitor routes, for one key watching 1,000 numbers (their checks answered by the VIES
 * fake): each route on those monitors in turn. DELETE goes to ids no key has (404): a delete
 * that deletes can be sent once per monitor, and its worst case is bounded-work's.
 */
async function monitorWorkloads(base: string, key: string): Promise<Workload[]> {
  const numbers = createVatNumberSource().take(MONITORED, [
    "NL",
    "BE",
    "DK",
    "FI",
    "HU",
    "PL",
    "EE",
    "LU",
    "SI",
  ]);
  const created = await fetch(`${base}/monitors`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ items: numbers.map((vat) => ({ vat })) }),
  });
  if (created.status !== 201) throw new Error(`POST /monitors: ${created.status} ${await created.text()}`);
  const ids = ((await created.json()) as { monitors: { id: string }[] }).monitors.map(
    (monitor) => monitor.id,
  );
  const each = (suffix = "") => ids.map((id) => `/monitors/${id}${suffix}`);
  return [
    {
      name: "POST /monitors, a number watched already (200)",
      bodies: numbers.map((vat) => JSON.stringify({ vat })),
    },
    { name: "GET /monitors, pages of 100", bodies: [], paths: ["/monitors?limit=100"] },
    { name: "GET /monitors/{id}", bodies: [], paths: each() },
    {
      name: "PATCH /monitors/{id}",
      method: "PATCH",
      bodies: [JSON.stringify({ interval_days: 7 }), JSON.stringify({ interval_days: 30, reference: "r" })],
      paths: each(),
    },
    { name: "POST /monitors/{id}/check (202)", method: "POST", bodies: [], paths: each("/check") },
    { name: "GET /monitors/{id}/events", bodies: [], paths: each("/events") },
    {
      name: "DELETE /monitors/{id}, unknown ids (404)",
      method: "DELETE",
      bodies: [],
      paths: ids.map((id) => `/monitors/mon_${id.slice(4).split("").reverse().join("")}`),
    },
  ];
}

/** Measures the bare endpoint, the reference point of every HTTP table. */
export async function measureBare(wrk: string): Promise<LoadResult> {
  const bare = await startBare();
  try {
    const target = { url: `http://127.0.0.1:${bare.port}/validate`, pid: bare.pid };
    return await measureWorkload(wrk, target, [], IBAN_WORKLOAD, "bare");
  } finally {
    await bare.stop();
  }
}

async function main(): Promise<void> {
  const wrk = findWrk();
  const bare = await measureBare(wrk);
  const rows: ThroughputRow[] = [
    { server: "bare Elysia POST (body schema, no work)", workload: "IBAN", result: bare },
  ];
  const vies = await startViesFake();
  await forEachDeployment({ VIES_BASE_URL: vies.baseUrl }, async (deployment) => {
    const target = { url: `http://127.0.0.1:${deployment.port}/validate`, pid: deployment.pid };
    const result = await measureWorkload(wrk, target, deployment.keys, IBAN_WORKLOAD, deployment.name);
    rows.push({ server: deployment.name, workload: "IBAN", result });
    for (const workload of [IBAN_NEW_KEY, IBAN_REPLAYED]) {
      const keyed = await measureWorkload(wrk, target, deployment.keys, workload, deployment.name);
      rows.push({ server: deployment.name, workload: workload.name, result: keyed });
    }
    const build = { url: `http://127.0.0.1:${deployment.port}/iban/build`, pid: deployment.pid };
    const built = await measureWorkload(wrk, build, deployment.keys, IBAN_BUILD_WORKLOAD, deployment.name);
    rows.push({ server: deployment.name, workload: IBAN_BUILD_WORKLOAD.name, result: built });
    const page = { url: `http://127.0.0.1:${deployment.port}/console`, pid: deployment.pid };
    const pageResult = await measureWorkload(wrk, page, [], CONSOLE_PAGE, deployment.name);
    rows.push({ server: deployment.name, workload: CONSOLE_PAGE.name, result: pageResult });
    const base = `http://127.0.0.1:${deployment.port}`;
    const watcher = deployment.keys.slice(0, 1);
    for (const workload of await monitorWorkloads(base, watcher[0] ?? "")) {
      const target = { url: `${base}/monitors`, pid: deployment.pid };
      const result = await measureWorkload(wrk, target, watcher, workload, deployment.name);
      rows.push({ server: deployment.name, workload: workload.name, result });
    }
  });
  await vies.stop();
  process.stdout.write(
    `\nHTTP benchmark: ${LOAD.connections} connections, ${LOAD.seconds} s, wrk, ${KEY_COUNT} keys, billable IBAN validations and builds\n\n`,
  );
  process.stdout.write(`${throughputTable(rows, bare, "IBAN")}\n`);
}

if (import.meta.main) await main();
