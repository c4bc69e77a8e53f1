/**
 * The record of billing, read straight from Postgres: what the usage rows of some keys say,
 * to compare with what clients were told. Also issues keys with the service's own KeyStore.
 */
import type postgres from "postgres";
import { KeyStore } from "../../src/accounts/key-store.ts";
import { connectPostgres } from "../../src/kernel/db.ts";

export type Billing = {
  /** Billed units (SUM of `usage_months.used`). */
  used: number;
  /** Units held by reservations (SUM of `usage_months.reserved`). */
  reserved: number;
  /** Validate requests counted. */
  requests: number;
  /** Rows in `reservations`; must equal `reserved`. */
  reservations: number;
};

/** Usage of `keyIds`, all months together. */
export async function billingOf(sql: postgres.Sql, keyIds: string[]): Promise<Billing> {
  const [usage] = await sql<{ used: number; reserved: number; requests: number }[]>`
    SELECT COALESCE(SUM(used), 0)::int AS used, COALESCE(SUM(reserved), 0)::int AS reserved,
           COALESCE(SUM(requests), 0)::int AS requests
    FROM usage_months WHERE key_id IN ${sql(keyIds)}`;
  const [held] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM reservations WHERE key_id IN ${sql(keyIds)}`;
  return {
    used: usage?.used ?? 0,
    reserved: usage?.reserved ?? 0,
    requests: usage?.requests ?? 0,
    reservations: held?.n ?? 0,
  };
}

/**
 * Ends the lease of every reservation of `keyIds` now, as if their lease had run out: the
 * service's next sweep (every 10 s, and on the first batch after a start) releases them.
 */
export async function expireReservations(sql: postgres.Sql, keyIds: string[]): Promise<number> {
  const expired = await sql`
    UPDATE reservations SET expires_at = now() - interval '1 second' WHERE key_id IN ${sql(keyIds)}`;
  return expired.count;
}

/**
 * Issues `count` pro keys on the Postgres at `url` (its schema must exist: start the service
 * first), with a quota too high to matter and a per-minute limit of `rate` (default: too
 * high to matter).
 */
export async function createKeys(
  url: string,
  count: number,
  options: { rate?: number } = {},
): Promise<{ keyId: string; secret: string }[]> {
  const database = connectPostgres(url, { max: 1 });
  try {
    const store = new KeyStore(database);
    const keys = [];
    for (let i = 0; i < count; i++) {
      const { record, secret } = await store.create({
        planId: "pro",
        name: "fault test",
        monthlyQuota: 1_000_000_000,
        ratePerMinute: options.rate ?? 1_000_000_000,
      });
      keys.push({ keyId: record.id, secret });
    }
    return keys;
  } finally {
    await database.close();
  }
}
