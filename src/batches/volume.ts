import { sql } from "drizzle-orm";
import type { BatchLimits } from "../accounts/plans.ts";
import type { Rows } from "../kernel/db.ts";
import { ApiError } from "../kernel/errors.ts";

/** How soon to ask again when every active batch is taken: batches finish in seconds to minutes. */
const ACTIVE_RETRY_SECONDS = 60;

/**
 * A batch of `items` refused outright: bigger than the plan's whole day, so waiting cannot
 * help (400, not 429).
 */
export function checkBatchSize(items: number, limits: BatchLimits, plan: string): void {
  if (items > limits.itemsPerDay) {
    throw new ApiError(
      "invalid_request",
      `a batch of the ${plan} plan holds at most ${limits.itemsPerDay} items, the plan's batch items a day; got ${items}`,
    );
  }
}

/**
 * Counts a new batch of `items` against its key's limits, inside the transaction that creates
 * it, so a refused batch leaves nothing behind. The key's volume row is locked first: the
 * key's concurrent creations — on any instance — take turns from there, and each counts the
 * active batches the one before it committed. Throws 429 `rate_limited` naming the limit and
 * when it frees (`Retry-After`): the next day at 00:00 UTC (the database's clock), or when one
 * of the key's batches completes or is cancelled.
 */
export async function countBatchVolume(
  rows: Rows,
  input: { keyId: string; items: number; limits: BatchLimits; plan: string },
): Promise<void> {
  const { keyId, items, limits, plan } = input;
  const [volume] = await rows<{ items: number; seconds_left: number }>(sql`
    INSERT INTO batch_volume AS v (key_id, day, items)
    VALUES (${keyId}, (now() AT TIME ZONE 'UTC')::date, ${items})
    ON CONFLICT (key_id) DO UPDATE SET
      items = CASE WHEN v.day = EXCLUDED.day THEN v.items + EXCLUDED.items ELSE EXCLUDED.items END,
      day = EXCLUDED.day
    RETURNING items, EXTRACT(EPOCH FROM
      date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day' - now() AT TIME ZONE 'UTC')::float8
      AS seconds_left`);
  if (!volume) throw new Error("the batch volume row was not written");
  if (volume.items > limits.itemsPerDay) {
    const used = volume.items - items;
    throw new ApiError(
      "rate_limited",
      `the ${plan} plan allows ${limits.itemsPerDay} batch items a day (UTC); ${used} are used today and this batch has ${items}: ${Math.max(0, limits.itemsPerDay - used)} more can be sent today, all of them again from 00:00 UTC`,
      { retryAfter: volume.seconds_left },
    );
  }
  const [active] = await rows<{ count: number }>(sql`
    SELECT count(*)::int AS count FROM batches
    WHERE key_id = ${keyId} AND status IN ('queued', 'running')`);
  if ((active?.count ?? 0) >= limits.active) {
    throw new ApiError(
      "rate_limited",
      `the ${plan} plan allows ${limits.active} batches queued or running at once; one frees when a batch of this key completes or is cancelled (DELETE /batches/{id})`,
      { retryAfter: ACTIVE_RETRY_SECONDS },
    );
  }
}
