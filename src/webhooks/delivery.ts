import { randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createPoller, type Poller } from "../background/poller.ts";
import type { Database } from "../kernel/db.ts";
import { describeFailure } from "../kernel/failure.ts";
import type { Logger } from "../kernel/log.ts";
import type { WebhookSecrets } from "./secrets.ts";
import {
  parseWebhookUrl,
  type ResolvedAddress,
  type Resolver,
  resolveWebhookTarget,
  type WebhookPolicy,
} from "./target.ts";

export type WebhookDeliveryOptions = {
  database: Database;
  secrets: WebhookSecrets;
  policy: WebhookPolicy;
  log: Logger;
  /** The most one attempt may take, connecting included. */
  timeoutMs: number;
  /** The first retry's delay; it doubles per attempt, up to an hour. */
  backoffBaseMs: number;
  /** How often due messages are looked for. */
  pollMs: number;
  /** How long a claim holds a message while it is attempted. */
  leaseMs: number;
  /** Whether this process is the only worker there can be (embedded): claims left by a crash are dropped at start. */
  soleWorker: boolean;
  /** Resolves webhook hosts; the system's resolver by default. */
  resolve?: Resolver;
};

/** Messages attempted at the same time, per instance. */
const CONCURRENCY = 8;
/** Of an answer, only the status matters: the body is read no further than this. */
const MAX_ANSWER_BYTES = 4096;
const MAX_BACKOFF_MS = 60 * 60 * 1000;

type Due = { id: string; key_id: string; url: string; payload: string; attempts: number };

/** What one attempt got: the HTTP status, or null when no answer came (refused, timed out). */
type Attempt = { status: number | null; problem: string | null };

/**
 * Delivers queued webhook messages: at least once, each attempt signed per Standard Webhooks
 * with the key's current secret and the same `webhook-id`; a non-2xx answer, a timeout or a
 * refused connection is retried with exponential backoff until the message's give-up time. The
 * URL is checked again at every attempt, and the connection goes to the very address that
 * passed (no second DNS lookup); redirects are not followed.
 */
export function createWebhookDelivery(options: WebhookDeliveryOptions): Poller {
  const { database, secrets, policy, log } = options;
  const token = `wh_${randomBytes(9).toString("hex")}`;
  let started = false;

  const claim = () =>
    database.rows<Due>(sql`
      WITH picked AS (
        SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
        ORDER BY next_attempt_at LIMIT ${CONCURRENCY}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE webhook_deliveries w SET lease_token = ${token}, lease_until = now() + ${options.leaseMs} * interval '1 millisecond'
      FROM picked WHERE w.id = picked.id
      RETURNING w.id, w.key_id, w.url, w.payload, w.attempts`);

  const attempt = async (due: Due): Promise<Attempt> => {
    let address: ResolvedAddress;
    let url: URL;
    try {
      url = parseWebhookUrl(due.url, policy);
      address = await resolveWebhookTarget(url, policy, options.resolve);
    } catch (error) {
      return { status: null, problem: `webhook_url ${(error as Error).message}` };
    }
    const sentAt = new Date();
    const signature = new Webhook(await secrets.get(due.key_id)).sign(due.id, sentAt, due.payload);
    return post(url, address, options.timeoutMs, due.payload, {
      "content-type": "application/json",
      "user-agent": "vat-iban-service-webhooks",
      "webhook-id": due.id,
      "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
      "webhook-signature": signature,
    });
  };

  const deliver = async (due: Due) => {
    const outcome = await attempt(due);
    const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const delayMs =
      Math.min(MAX_BACKOFF_MS, options.backoffBaseMs * 2 ** due.attempts) * (0.75 + Math.random() / 2);
    await database.rows(sql`
      UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ${outcome.status},
        last_attempt_at = now(), lease_token = NULL, lease_until = NULL,
        next_attempt_at = now() + ${Math.round(delayMs)} * interval '1 millisecond',
        status = CASE WHEN ${delivered} THEN 'delivered'
          WHEN now() + ${Math.round(delayMs)} * interval '1 millisecond' > give_up_at THEN 'failed'
          ELSE 'pending' END
      WHERE id = ${due.id} AND lease_token = ${token}`);
    const fields = {
      message: due.id,
      attempt: due.attempts + 1,
      status: outcome.status,
      problem: outcome.problem,
    };
    if (delivered) log.info("webhook_delivered", fields);
    else log.warn("webhook_attempt_failed", fields);
  };

  return createPoller({
    intervalMs: options.pollMs,
    onError: (error) => log.error("webhook_delivery_failed", describeFailure(error)),
    async tick() {
      if (!started) {
        if (options.soleWorker) {
          await database.rows(
            sql`UPDATE webhook_deliveries SET lease_token = NULL, lease_until = NULL WHERE status = 'pending'`,
          );
        }
        started = true;
      }
      const due = await claim();
      await Promise.all(due.map(deliver));
      return due.length === CONCURRENCY;
    },
  });
}

/** One POST to exactly `address`, for `url`'s host name (its TLS name and Host header). */
function post(
  url: URL,
  address: ResolvedAddress,
  timeoutMs: number,
  body: string,
  headers: Record<string, string>,
): Promise<Attempt> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        timeout: timeoutMs,
        lookup: (_host, lookupOptions, callback) =>
          (lookupOptions as { all?: boolean }).all
            ? (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, [address])
            : callback(null, address.address, address.family),
      },
      (response) => {
        let read = 0;
        response.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const done = () => resolve({ status: response.statusCode ?? null, problem: null });
        response.on("end", done);
        response.on("close", done);
        response.on("error", done);
      },
    );
    const deadline = setTimeout(
      () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.on("error", (error) => resolve({ status: null, problem: error.message }));
    request.on("close", () => clearTimeout(deadline));
    request.end(body);
  });
}
