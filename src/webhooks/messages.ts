import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { markDue, type QueueUnits } from "../background/due-units.ts";
import type { Batch, BatchEvent } from "../batches/schema.ts";
import type { Rows } from "../kernel/db.ts";

/** How long a message is retried before it is given up. */
export const DELIVERY_WINDOW_HOURS = 24;

/**
 * Webhook messages, in units of one key: a key is due when one of its pending messages is, so a
 * key whose messages all wait for their retry costs a claim nothing.
 */
export const WEBHOOK_MESSAGES: QueueUnits = {
  name: "webhooks",
  earliest: (unit) =>
    sql`(SELECT min(next_attempt_at) FROM webhook_deliveries WHERE key_id = ${unit} AND status = 'pending')`,
};

/**
 * Queues the webhook of a batch that completed or was cancelled, in the transaction that did
 * it: the message exists exactly when the batch ended. Its id is the `webhook-id` of every
 * attempt; its body is fixed here, so every retry sends the same bytes.
 */
export async function queueBatchWebhook(
  rows: Rows,
  keyId: string,
  type: BatchEvent["type"],
  batch: Batch,
): Promise<void> {
  if (batch.webhook === null) return;
  const payload = JSON.stringify({ type, data: batch } satisfies BatchEvent);
  await rows(sql`
    INSERT INTO webhook_deliveries (id, batch_id, key_id, url, payload, give_up_at)
    VALUES (${`msg_${randomBytes(12).toString("hex")}`}, ${batch.id}, ${keyId}, ${batch.webhook.url}, ${payload},
      now() + ${DELIVERY_WINDOW_HOURS} * interval '1 hour')
    ON CONFLICT (batch_id) DO NOTHING`);
  await rows(markDue(WEBHOOK_MESSAGES, keyId, keyId, sql`now()`));
}

/**
 * Queues the webhook of a monitor's event, in the transaction that recorded it: its id is the
 * event's (the `webhook-id` of every attempt), its body fixed here.
 */
export async function queueMonitorWebhook(
  rows: Rows,
  message: { id: string; keyId: string; monitorId: string; url: string; payload: string },
): Promise<void> {
  await rows(sql`
    INSERT INTO webhook_deliveries (id, monitor_id, key_id, url, payload, give_up_at)
    VALUES (${message.id}, ${message.monitorId}, ${message.keyId}, ${message.url}, ${message.payload},
      now() + ${DELIVERY_WINDOW_HOURS} * interval '1 hour')`);
  await rows(markDue(WEBHOOK_MESSAGES, message.keyId, message.keyId, sql`now()`));
}
