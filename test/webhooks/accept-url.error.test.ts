import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Resolver } from "../../src/webhooks/target.ts";
import { type Harness, startHarness } from "../support/harness.ts";

/**
 * The routes that take a `webhook_url` resolve its host to check it: a resolver that never
 * answers is 503 `service_unavailable` with `Retry-After` after WEBHOOK_CONNECT_TIMEOUT_MS,
 * never a request held for good, and nothing is created or changed.
 */
const CONNECT_TIMEOUT_MS = 200;
const unanswered = "hooks.unanswered.example";
const resolve: Resolver = (host) =>
  host === unanswered ? new Promise(() => {}) : Promise.resolve([{ address: "93.184.216.34", family: 4 }]);

let harness: Harness;
let key: { keyId: string; secret: string };

beforeAll(async () => {
  harness = await startHarness({ env: { WEBHOOK_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS) }, resolve });
  key = await harness.createKey("pro", { rate: 1_000_000 });
});
afterAll(() => harness.close());

/** Sends `body` to `path`; the answer, and how long it took in ms. */
async function timed(method: string, path: string, body: Record<string, unknown>) {
  const started = performance.now();
  const answer = await harness.request(method, path, { key: key.secret, body });
  return { answer, ms: performance.now() - started };
}

function expectUnavailable({ answer, ms }: Awaited<ReturnType<typeof timed>>) {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status: 503,
    body: {
      error: {
        code: "service_unavailable",
        message: `\`webhook_url\` its host ${unanswered} did not resolve within ${CONNECT_TIMEOUT_MS} ms; try again shortly`,
      },
    },
  });
  expect(answer.headers.get("retry-after")).toBe("5");
  expect(ms).toBeLessThan(CONNECT_TIMEOUT_MS + 5000);
}

const count = async (table: "batches" | "monitors") =>
  (
    await harness.services.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE key_id = ${key.keyId}`,
    )
  )[0]?.n;

describe("a webhook_url whose host does not resolve in time", () => {
  test("POST /batches: 503 with Retry-After, no batch", async () => {
    expectUnavailable(
      await timed("POST", "/batches", {
        items: [{ vat: "DE811569869" }],
        webhook_url: `https://${unanswered}/in`,
      }),
    );
    expect(await count("batches")).toBe(0);
    // The same request with a host the resolver answers is accepted: the lookup alone failed.
    const accepted = await timed("POST", "/batches", {
      items: [{ vat: "DE811569869" }],
      webhook_url: "https://hooks.example.com/in",
    });
    expect(accepted.answer.status).toBe(202);
  });

  test("POST /monitors: 503 with Retry-After, no monitor", async () => {
    expectUnavailable(
      await timed("POST", "/monitors", { vat: "LU20260743", webhook_url: `https://${unanswered}/in` }),
    );
    expect(await count("monitors")).toBe(0);
  });

  test("PATCH /monitors/{id}: 503 with Retry-After, the monitor unchanged", async () => {
    const created = await timed("POST", "/monitors", {
      vat: "IE6388047V",
      webhook_url: "https://hooks.example.com/in",
    });
    expect(created.answer.status).toBe(201);
    const monitor = created.answer.body as { id: string };
    expectUnavailable(
      await timed("PATCH", `/monitors/${monitor.id}`, { webhook_url: `https://${unanswered}/in` }),
    );
    const read = await harness.request("GET", `/monitors/${monitor.id}`, { key: key.secret });
    expect(read.body).toEqual(monitor);
  });
});
