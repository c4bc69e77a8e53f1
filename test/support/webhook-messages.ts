import { sql } from "drizzle-orm";
import { markDue } from "../../src/background/due-units.ts";
import type { Database } from "../../src/kernel/db.ts";
import { WEBHOOK_MESSAGES } from "../../src/webhooks/messages.ts";

const randomId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;

/** A batch of `keyId` and its queued message for `url`, due now, as a finished batch leaves them: the message id. */
export async function queueMessage(database: Database, keyId: string, url: string): Promise<string> {
  const batchId = randomId("bat");
  const id = randomId("msg");
  await database.transaction(async (rows) => {
    await rows(
      sql`INSERT INTO batches (id, key_id, total, webhook_url) VALUES (${batchId}, ${keyId}, 0, ${url})`,
    );
    await rows(sql`
      INSERT INTO webhook_deliveries (id, batch_id, key_id, url, payload, give_up_at)
      VALUES (${id}, ${batchId}, ${keyId}, ${url}, ${JSON.stringify({ type: "batch.completed", data: { id: batchId } })}, now() + interval '1 hour')`);
    await rows(markDue(WEBHOOK_MESSAGES, keyId, keyId, sql`now()`));
  });
  return id;
}

/** Gives up the messages of `keyIds` still pending, so that no later worker on this database attempts them. */
export async function dropPending(database: Database, keyIds: string[]): Promise<void> {
  await database.rows(sql`
    UPDATE webhook_deliveries SET status = 'failed'
    WHERE status = 'pending' AND key_id IN (SELECT value FROM jsonb_array_elements_text(${JSON.stringify(keyIds)}::jsonb))`);
}

/**
 * `count` queued messages of `keyId` for `url`, each of a batch of its own, due `dueAt`, in one
 * statement: a backlog, without a transaction per message.
 */
export async function queueBacklog(
  database: Database,
  keyId: string,
  url: string,
  count: number,
  dueAt = sql`now()`,
): Promise<void> {
  await database.transaction(async (rows) => {
    await rows(sql`
      WITH made AS (
        INSERT INTO batches (id, key_id, total, webhook_url)
        SELECT 'bat_' || substr(md5(random()::text || n), 1, 24), ${keyId}, 0, ${url}
        FROM generate_series(1, ${count}) AS n
        RETURNING id)
      INSERT INTO webhook_deliveries (id, batch_id, key_id, url, payload, next_attempt_at, give_up_at)
      SELECT 'msg_' || substr(md5(id), 1, 24), id, ${keyId}, ${url},
        json_build_object('type', 'batch.completed', 'data', json_build_object('id', id))::text,
        ${dueAt}, now() + interval '1 hour'
      FROM made`);
    await rows(markDue(WEBHOOK_MESSAGES, keyId, keyId, dueAt));
  });
}
