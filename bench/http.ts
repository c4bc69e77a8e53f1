/**
 * HTTP load: authenticated, billable POST /validate (IBAN) spread over 1,000 keys — plain,
 * with a new `Idempotency-Key` each, and replayed under their keys — and the console's page, against the embedded default and against real Postgres + Redis, beside a
 * bare Elysia POST in the same run. Run with `npm run bench:http`; set DATABASE_URL and
 * REDIS_URL for the second configuration (defaults: the local servers CI uses).
 */
import examples from "../test/fixtures/iban-examples.json" with { type: "json" };
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

/** The console's page (GET /console): a file of the service, served without a key. */
const CONSOLE_PAGE: Workload = { name: "GET /console (page, no key)", bodies: [] };

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
  await forEachDeployment({}, async (deployment) => {
    const target = { url: `http://127.0.0.1:${deployment.port}/validate`, pid: deployment.pid };
    const result = await measureWorkload(wrk, target, deployment.keys, IBAN_WORKLOAD, deployment.name);
    rows.push({ server: deployment.name, workload: "IBAN", result });
    for (const workload of [IBAN_NEW_KEY, IBAN_REPLAYED]) {
      const keyed = await measureWorkload(wrk, target, deployment.keys, workload, deployment.name);
      rows.push({ server: deployment.name, workload: workload.name, result: keyed });
    }
    const page = { url: `http://127.0.0.1:${deployment.port}/console`, pid: deployment.pid };
    const pageResult = await measureWorkload(wrk, page, [], CONSOLE_PAGE, deployment.name);
    rows.push({ server: deployment.name, workload: CONSOLE_PAGE.name, result: pageResult });
  });
  process.stdout.write(
    `\nHTTP benchmark: ${LOAD.connections} connections, ${LOAD.seconds} s, wrk, ${KEY_COUNT} keys, billable IBAN validations\n\n`,
  );
  process.stdout.write(`${throughputTable(rows, bare, "IBAN")}\n`);
}

if (import.meta.main) await main();
