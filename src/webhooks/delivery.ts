import http from "node:http";
import https from "node:https";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createClaimWorker } from "../background/claim-worker.ts";
import { allDue, dueUnits, markDue } from "../background/due-units.ts";
import { FairShare } from "../background/fair-share.ts";
import type { Database } from "../kernel/db.ts";
import type { Logger } from "../kernel/log.ts";
import { type ClaimedMessage, claimableMessages, claimMessages, releaseMessages } from "./claims.ts";
import { WEBHOOK_MESSAGES } from "./messages.ts";
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
  /** Attempts in flight at the same time, per instance. */
  concurrency: number;
  /** The most one attempt may take, connecting included. */
  timeoutMs: number;
  /**
   * The most connecting may take (the host name resolved, TCP, and TLS for https): a target whose
   * name does not resolve, or that does not accept, gives its slot back this soon.
   */
  connectTimeoutMs: number;
  /** The first retry's delay; it doubles per attempt, up to an hour. */
  backoffBaseMs: number;
  /** How often due messages are looked for. */
  pollMs: number;
  /** How long a claim holds a message while it is attempted; never less than twice `timeoutMs`. */
  leaseMs: number;
  /** Whether this process is the only worker there can be (embedded): claims left by a crash are dropped at start. */
  soleWorker: boolean;
  /** Resolves webhook hosts; the system's resolver by default. */
  resolve?: Resolver;
};

/** Attempts in flight for one key's messages, per instance, whatever is free. */
export const WEBHOOK_SLOTS_PER_KEY = 4;
/** Attempts in flight to one host, per instance, whoever's messages they are. */
export const WEBHOOK_SLOTS_PER_HOST = 4;
/** Of an answer, only the status matters: the body is read no further than this. */
const MAX_ANSWER_BYTES = 4096;
const MAX_BACKOFF_MS = 60 * 60 * 1000;

/** What one attempt got: the HTTP status, or null when no answer came (refused, timed out). */
type Attempt = { status: number | null; problem: string | null };

/**
 * Delivers queued webhook messages: at least once, each attempt signed per Standard Webhooks
 * with the key's current secret and the same `webhook-id`; a non-2xx answer, a timeout or a
 * refused connection is retried with exponential backoff until the message's give-up time. The
 * URL is checked again at every attempt, and the connection goes to the very address that
 * passed (no second DNS lookup); redirects are not followed.
 *
 * Attempts run in `concurrency` slots, claimed as slots free (never in rounds that wait for the
 * slowest): the keys with due messages in turn, each within its fair share and at most
 * WEBHOOK_SLOTS_PER_KEY, and at most WEBHOOK_SLOTS_PER_HOST to one host. A claim does not read
 * the messages of a host at its cap (`claimMessages`), so an endpoint that never answers holds a
 * few slots until its timeout and never the others, however many messages wait for it.
 */
export function createWebhookDelivery(options: WebhookDeliveryOptions) {
  const { database, secrets, policy, log } = options;
  const slots = new FairShare(options.concurrency, WEBHOOK_SLOTS_PER_KEY, WEBHOOK_SLOTS_PER_HOST);
  const claimable = claimableMessages(slots);

  /**
   * Every key with pending messages has its row in `work_due` (messages from before it existed
   * get theirs here); the sole worker of an embedded database drops the claims a crash left.
   */
  const prepare = async () => {
    await database.rows(sql`
      INSERT INTO work_due (queue, unit, key_id, due_at)
      SELECT ${WEBHOOK_MESSAGES.name}, key_id, key_id, now() FROM webhook_deliveries WHERE status = 'pending'
      GROUP BY key_id
      ON CONFLICT (queue, unit) DO NOTHING`);
    if (!options.soleWorker) return;
    await database.rows(sql`
      UPDATE webhook_deliveries SET lease_token = NULL, lease_until = NULL, next_attempt_at = now()
      WHERE status = 'pending' AND lease_token IS NOT NULL`);
    await allDue(database, WEBHOOK_MESSAGES);
  };

  const attempt = async (due: ClaimedMessage): Promise<Attempt> => {
    const startedAt = performance.now();
    let address: ResolvedAddress;
    let url: URL;
    try {
      url = parseWebhookUrl(due.url, policy);
      address = await resolveWebhookTarget(url, policy, {
        timeoutMs: options.connectTimeoutMs,
        resolve: options.resolve,
      });
    } catch (error) {
      return { status: null, problem: `webhook_url ${(error as Error).message}` };
    }
    const sentAt = new Date();
    const signature = new Webhook(await secrets.get(due.keyId)).sign(due.id, sentAt, due.payload);
    return post(url, address, { ...options, startedAt }, due.payload, {
      "content-type": "application/json",
      "user-agent": "vat-iban-service-webhooks",
      "webhook-id": due.id,
      "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
      "webhook-signature": signature,
    });
  };

  const deliver = async (due: ClaimedMessage) => {
    const outcome = await attempt(due);
    const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const delayMs =
      Math.min(MAX_BACKOFF_MS, options.backoffBaseMs * 2 ** due.attempts) * (0.75 + Math.random() / 2);
    const next = sql`now() + ${Math.round(delayMs)} * interval '1 millisecond'`;
    // A retry makes the key due sooner than a settle may have left it: marked in the same statement.
    await database.rows(sql`
      ${delivered ? sql`` : sql`WITH due AS (${markDue(WEBHOOK_MESSAGES, due.keyId, due.keyId, next)})`}
      UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ${outcome.status},
        last_attempt_at = now(), lease_token = NULL, lease_until = NULL, next_attempt_at = ${next},
        status = CASE WHEN ${delivered} THEN 'delivered' WHEN ${next} > give_up_at THEN 'failed' ELSE 'pending' END
      WHERE id = ${due.id} AND lease_token = ${due.token}`);
    const fields = {
      message: due.id,
      attempt: due.attempts + 1,
      status: outcome.status,
      problem: outcome.problem,
    };
    if (delivered) log.info("webhook_delivered", fields);
    else log.warn("webhook_attempt_failed", fields);
  };

  // No lease renewal: an attempt is cut off at `timeoutMs`, so its lease must outlast that, or
  // another instance would take the message while it is still being attempted and send it
  // twice; the setting it comes from (BATCH_LEASE_SECONDS) may be as short as 2 s, the timeout 60 s.
  const leaseMs = Math.max(options.leaseMs, 2 * options.timeoutMs);
  return createClaimWorker({
    slots,
    pollMs: options.pollMs,
    log,
    events: { claimFailed: "webhook_claim_failed", workFailed: "webhook_delivery_failed" },
    prepare,
    async find(afterKey, window) {
      return {
        due: await dueUnits(database, claimable, afterKey, window),
        claim: (wanted, idle) =>
          claimMessages(
            database,
            wanted.map(({ unit: { keyId }, take }) => ({ keyId, take })),
            leaseMs,
            idle.map(({ keyId }) => keyId),
            { slots, window },
          ),
      };
    },
    target: (message) => message.host,
    work: deliver,
    describe: (message) => ({ message: message.id }),
    release: (held) => releaseMessages(database, held),
  });
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;

/**
 * One POST to exactly `address`, for `url`'s host name (its TLS name and Host header): given up
 * when the connection is not made (TLS included) within `connectTimeoutMs`, or no answer has
 * come within `timeoutMs`, both counted from the attempt's `startedAt` (`performance.now()`),
 * which the resolution of the host name took its part of.
 */
function post(
  url: URL,
  address: ResolvedAddress,
  {
    timeoutMs,
    connectTimeoutMs,
    startedAt,
  }: { timeoutMs: number; connectTimeoutMs: number; startedAt: number },
  body: string,
  headers: Record<string, string>,
): Promise<Attempt> {
  const secure = url.protocol === "https:";
  const left = (ms: number) => Math.max(0, startedAt + ms - performance.now());
  return new Promise((resolve) => {
    const request = (secure ? https : http).request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        timeout: left(timeoutMs),
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
      left(timeoutMs),
    );
    const connecting = setTimeout(
      () => request.destroy(new Error(`not connected within ${connectTimeoutMs} ms`)),
      left(connectTimeoutMs),
    );
    request.on("socket", (socket) => {
      // A socket kept alive from an earlier request is connected already.
      if (!socket.connecting) clearTimeout(connecting);
      else socket.once(secure ? "secureConnect" : "connect", () => clearTimeout(connecting));
    });
    request.on("error", (error) => resolve({ status: null, problem: error.message }));
    request.on("close", () => {
      clearTimeout(deadline);
      clearTimeout(connecting);
    });
    request.end(body);
  });
}
