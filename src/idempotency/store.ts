import type { Database } from "../kernel/db.ts";
import type { KeptRequest, StoredAnswer } from "./decide.ts";

/** The request a key names: its API key's id, and the key the client sent. */
export type Scope = { keyId: string; key: string };

type Row = {
  inserted: number;
  fingerprint: string | null;
  lease_token: string | null;
  status: number | null;
  headers: string | null;
  body: string | null;
  lease_expired: boolean | null;
  expired: boolean | null;
};

const LEASE = "now() + $5::double precision * interval '1 millisecond'";
const EXPIRY = "now() + $6::double precision * interval '1 hour'";

// One statement in the common case: the key is new and this request takes it. When the key is
// there, the row comes back instead; when another request inserted it in the meantime (its
// commit is after this statement's snapshot), neither does, and the caller asks again.
const CLAIM_SQL = `
  WITH inserted AS (
    INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, lease_token, lease_until, expires_at)
    VALUES ($1, $2, $3, $4, ${LEASE}, ${EXPIRY})
    ON CONFLICT (key_id, idempotency_key) DO NOTHING
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM inserted)::int AS inserted, k.fingerprint, k.lease_token, k.status,
    k.headers::text AS headers, k.body, (k.lease_until IS NULL OR k.lease_until <= now()) AS lease_expired,
    k.expires_at <= now() AS expired
  FROM (SELECT 1) AS one
  LEFT JOIN idempotency_keys k ON k.key_id = $1 AND k.idempotency_key = $2 AND NOT EXISTS (SELECT 1 FROM inserted)`;

// Only over what `decide` judged over, and only if nobody took it over first.
const TAKE_OVER_SQL = `
  UPDATE idempotency_keys SET fingerprint = $3, lease_token = $4, lease_until = ${LEASE}, expires_at = ${EXPIRY},
    status = NULL, headers = NULL, body = NULL, created_at = now()
  WHERE key_id = $1 AND idempotency_key = $2 AND lease_token IS NOT DISTINCT FROM $7
    AND (expires_at <= now() OR (status IS NULL AND lease_until <= now()))
  RETURNING 1`;

const COMPLETE_SQL = `
  UPDATE idempotency_keys SET status = $4, headers = $5::jsonb, body = $6, lease_token = NULL, lease_until = NULL
  WHERE key_id = $1 AND idempotency_key = $2 AND lease_token = $3
  RETURNING 1`;

const RENEW_SQL = `
  UPDATE idempotency_keys SET lease_until = now() + $4::double precision * interval '1 millisecond'
  WHERE key_id = $1 AND idempotency_key = $2 AND lease_token = $3
  RETURNING 1`;

const RELEASE_SQL =
  "DELETE FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2 AND lease_token = $3";

const SWEEP_SQL = "DELETE FROM idempotency_keys WHERE expires_at <= now()";

/** What `claim` found: the key is this request's now, or what is kept under it. */
export type Claimed = { kind: "taken" } | { kind: "kept"; kept: KeptRequest } | { kind: "raced" };

/**
 * The requests kept under idempotency keys, in the database (PGlite or Postgres), so that every
 * instance sees them and they survive restarts. Times are the database's: leases are written
 * and judged by one clock whatever the instances' own say.
 */
export class IdempotencyStore {
  constructor(
    private readonly database: Database,
    private readonly options: { ttlHours: number; leaseMs: number },
  ) {}

  get leaseMs(): number {
    return this.options.leaseMs;
  }

  /** The parameters $1–$6 of a statement that gives a request the key: who, what, under which lease, until when. */
  private holding(scope: Scope, fingerprint: string, leaseToken: string): unknown[] {
    return [scope.keyId, scope.key, fingerprint, leaseToken, this.options.leaseMs, this.options.ttlHours];
  }

  /** Takes the key for a request under `leaseToken` if nothing is kept under it; else what is. */
  async claim(scope: Scope, fingerprint: string, leaseToken: string): Promise<Claimed> {
    const [row] = await this.database.prepared<Row>(CLAIM_SQL, this.holding(scope, fingerprint, leaseToken));
    if (!row) throw new Error("the idempotency claim returned no row");
    if (row.inserted === 1) return { kind: "taken" };
    if (row.fingerprint === null) return { kind: "raced" };
    return {
      kind: "kept",
      kept: {
        fingerprint: row.fingerprint,
        leaseToken: row.lease_token,
        answer:
          row.status === null
            ? null
            : {
                status: row.status,
                headers: JSON.parse(row.headers ?? "{}") as Record<string, string>,
                body: row.body ?? "",
              },
        leaseExpired: row.lease_expired === true,
        expired: row.expired === true,
      },
    };
  }

  /** Takes over a key whose lease or lifetime ran out, unless another request did first. */
  async takeOver(
    scope: Scope,
    fingerprint: string,
    leaseToken: string,
    previousToken: string | null,
  ): Promise<boolean> {
    const rows = await this.database.prepared(TAKE_OVER_SQL, [
      ...this.holding(scope, fingerprint, leaseToken),
      previousToken,
    ]);
    return rows.length === 1;
  }

  /** Keeps the answer; false when the lease was lost (the key was taken over meanwhile). */
  async complete(scope: Scope, leaseToken: string, answer: StoredAnswer): Promise<boolean> {
    const rows = await this.database.prepared(COMPLETE_SQL, [
      scope.keyId,
      scope.key,
      leaseToken,
      answer.status,
      JSON.stringify(answer.headers),
      answer.body,
    ]);
    return rows.length === 1;
  }

  /** Extends the lease of a request still running; false when it was lost. */
  async renew(scope: Scope, leaseToken: string): Promise<boolean> {
    const rows = await this.database.prepared(RENEW_SQL, [
      scope.keyId,
      scope.key,
      leaseToken,
      this.options.leaseMs,
    ]);
    return rows.length === 1;
  }

  /** Forgets the key, so that the next request under it runs anew. */
  async release(scope: Scope, leaseToken: string): Promise<void> {
    await this.database.prepared(RELEASE_SQL, [scope.keyId, scope.key, leaseToken]);
  }

  /** Deletes what expired. */
  async sweep(): Promise<void> {
    await this.database.prepared(SWEEP_SQL, []);
  }
}
