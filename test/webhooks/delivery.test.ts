import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import type { Database } from "../../src/kernel/db.ts";
import { createLogger } from "../../src/kernel/log.ts";
import { createWebhookDelivery } from "../../src/webhooks/delivery.ts";
import { WebhookSecrets } from "../../src/webhooks/secrets.ts";
import type { Resolver } from "../../src/webhooks/target.ts";
import { proKey, testKeyStore } from "../support/database.ts";
import { dropPending, queueMessage } from "../support/webhook-messages.ts";

/**
 * Webhook delivery against a real endpoint over HTTP, with the messages in the real database:
 * to the address that was checked, for the URL's host name; no redirect followed; no more of
 * an answer read than its status needs; a refused address is an attempt that failed.
 */
let database: Database;
let keyId: string;
const requests: { host: string | null; path: string; body: string }[] = [];
let answer: (request: Request) => Response | Promise<Response> = () => new Response("ok");
let endpoint: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  const store = await testKeyStore();
  database = store.database;
  keyId = await proKey(store.keys, "webhooks");
  endpoint = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      requests.push({
        host: request.headers.get("host"),
        path: new URL(request.url).pathname,
        body: await request.text(),
      });
      return answer(request);
    },
  });
});
afterAll(() => endpoint?.stop(true));
// A message left waiting for a retry would be attempted by the next test's worker.
afterEach(() => dropPending(database, [keyId]));

/** A queued message of this file's key for `url`: its id. */
const queue = (url: string) => queueMessage(database, keyId, url);

async function state(id: string) {
  const [row] = await database.rows<{ status: string; attempts: number; last_status: number | null }>(
    sql`SELECT status, attempts, last_status FROM webhook_deliveries WHERE id = ${id}`,
  );
  return row;
}

/** Runs a delivery worker until the message has had `attempts` attempts. */
async function deliver(
  id: string,
  options: { resolve?: Resolver; allowPrivate?: boolean; attempts?: number } = {},
) {
  const worker = createWebhookDelivery({
    database,
    secrets: new WebhookSecrets(database),
    policy: { allowHttp: true, allowPrivate: options.allowPrivate ?? true },
    log: createLogger("silent"),
    concurrency: 16,
    timeoutMs: 1000,
    connectTimeoutMs: 1000,
    backoffBaseMs: 100,
    pollMs: 20,
    leaseMs: 5000,
    soleWorker: false,
    resolve: options.resolve,
  });
  worker.start();
  const deadline = Date.now() + 10_000;
  try {
    while (((await state(id))?.attempts ?? 0) < (options.attempts ?? 1)) {
      if (Date.now() > deadline) throw new Error(`message ${id} not attempted in time`);
      await Bun.sleep(20);
    }
  } finally {
    await worker.stop(1000);
  }
  return state(id);
}

const port = () => endpoint.port;

describe("webhook delivery", () => {
  test("connects to the address the host name was resolved and checked to, naming the host", async () => {
    const before = requests.length;
    const lookups: string[] = [];
    const resolve: Resolver = async (host) => {
      lookups.push(host);
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const id = await queue(`http://hooks.customer.test:${port()}/in`);
    expect(await deliver(id, { resolve })).toMatchObject({
      status: "delivered",
      attempts: 1,
      last_status: 200,
    });
    expect(lookups).toEqual(["hooks.customer.test"]);
    expect(requests.slice(before)).toEqual([
      {
        host: `hooks.customer.test:${port()}`,
        path: "/in",
        body: expect.stringContaining('"batch.completed"'),
      },
    ]);
  });

  test("each attempt is signed with the key's secret", async () => {
    const before = requests.length;
    let headers: Record<string, string> = {};
    answer = (request) => {
      headers = Object.fromEntries(request.headers);
      return new Response("ok");
    };
    const id = await queue(`http://127.0.0.1:${port()}/signed`);
    await deliver(id);
    answer = () => new Response("ok");
    const secret = await new WebhookSecrets(database).get(keyId);
    expect(headers["webhook-id"]).toBe(id);
    expect(() => new Webhook(secret).verify(requests[before]?.body ?? "", headers)).not.toThrow();
  });

  test("a redirect is not followed: it is a failed attempt, retried later", async () => {
    const before = requests.length;
    answer = () =>
      new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
    const id = await queue(`http://127.0.0.1:${port()}/moved`);
    expect(await deliver(id)).toMatchObject({ status: "pending", attempts: 1, last_status: 302 });
    answer = () => new Response("ok");
    expect(requests.slice(before).map((request) => request.path)).toEqual(["/moved"]);
  });

  test("an answer is read no further than its first few KiB", async () => {
    answer = () =>
      new Response(
        new ReadableStream({
          async pull(controller) {
            controller.enqueue(new Uint8Array(64 * 1024));
            await Bun.sleep(10);
          },
        }),
      );
    const id = await queue(`http://127.0.0.1:${port()}/endless`);
    const started = performance.now();
    expect(await deliver(id)).toMatchObject({ status: "delivered", last_status: 200 });
    answer = () => new Response("ok");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("an endpoint that does not answer in time is a failed attempt with no status", async () => {
    answer = () => new Promise<Response>((resolve) => setTimeout(() => resolve(new Response("late")), 3000));
    const id = await queue(`http://127.0.0.1:${port()}/slow`);
    expect(await deliver(id)).toMatchObject({ status: "pending", attempts: 1, last_status: null });
    answer = () => new Response("ok");
  });

  test("a host that resolves to a private address by the time of the attempt is not contacted", async () => {
    const before = requests.length;
    const rebound: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
    const id = await queue(`http://rebinding.customer.test:${port()}/h`);
    expect(await deliver(id, { resolve: rebound, allowPrivate: false })).toMatchObject({
      status: "pending",
      attempts: 1,
      last_status: null,
    });
    expect(requests.length).toBe(before);
  });
});
