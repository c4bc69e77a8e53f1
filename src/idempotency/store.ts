import { Batcher } from "../kernel/batcher.ts";
import { type Database, jsonb } from "../kernel/db.ts";
import type { KeptRequest, StoredAnswer } from "./decide.ts";

/** The request a key names: its API key's id, and the key the client sent. */
export type Scope = { keyId: string; key: string };

type Row = {
  i: number;
  taken: boolean;
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

// The claims of every request that arrived together, in one statement: each takes its key if
// nothing is kept under it, else gets the kept row back. The key of a request another one
// inserted in the meantime — committed after this statement's snapshot, or in this very
// statement — comes back with neither, and that request asks again. Rows are inserted in key
// order, so that two instances' statements wait for each other in one order, never in a cycle.
const CLAIM_SQL = `
  WITH claim AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb)
      AS d(i int, key_id text, idempotency_key text, fingerprint text, lease_token text)
  ), inserted AS (
    INSERT INTO idempotency_keys (key_id, idempotency_key, fingerprint, lease_token, lease_until, expires_at)
    SELECT key_id, idempotency_key, fingerprint, lease_token,
      now() + $2::double precision * interval '1 millisecond', now() + $3::double precision * interval '1 hour'
    FROM claim ORDER BY key_id, idempotency_key
    ON CONFLICT (key_id, idempotency_key) DO NOTHING
    RETURNING lease_token
  )
  SELECT claim.i, inserted.lease_token IS NOT NULL AS taken, k.fingerprint, k.lease_token, k.status,
    k.headers::text AS headers, k.body, (k.lease_until IS NULL OR k.lease_until <= now()) AS lease_expired,
    k.expires_at <= now() AS expired
  FROM claim
  LEFT JOIN inserted ON inserted.lease_token = claim.lease_token
  LEFT JOIN idempotency_keys k ON k.key_id = claim.key_id AND k.idempotency_key = claim.idempotency_key`;

// Only over what `decide` judged over, and only if nobody took it over first.
const TAKE_OVER_SQL = `
  UPDATE idempotency_keys SET fingerprint = $3, lease_token = $4, lease_until = ${LEASE}, expires_at = ${EXPIRY},
    status = NULL, headers = NULL, body = NULL, created_at = now()
  WHERE key_id = $1 AND idempotency_key = $2 AND lease_token IS NOT DISTINCT FROM $7
    AND (expires_at <= now() OR (status IS NULL AND lease_until <= now()))
  RETURNING 1`;

// The answers of every request that ended together, in one statement; each only under its lease.
const COMPLETE_SQL = `
  UPDATE idempotency_keys k SET status = d.status, headers = d.headers, body = d.body,
    lease_token = NULL, lease_until = NULL
  FROM jsonb_to_recordset($1::jsonb)
    AS d(key_id text, idempotency_key text, lease_token text, status smallint, headers jsonb, body text)
  WHERE k.key_id = d.key_id AND k.idempotency_key = d.idempotency_key AND k.lease_token = d.lease_token
  RETURNING k.key_id, k.idempotency_key`;

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
  // Requests that arrive (or end) together share a statement: on the embedded database every
  // statement costs about a millisecond of the server's only thread, one per request would cap
  // keyed requests at a few hundred a second. On Postgres several statements may be in flight:
  // each waits for its commit, and no two touch one row in different orders (claims insert in
  // key order; an answer is written only by its lease's holder).
  private readonly claims: Batcher<Claim, Claimed>;
  private readonly completions: Batcher<Completion, boolean>;

  constructor(
    private readonly database: Database,
    private readonly options: { ttlHours: number; leaseMs: number },
  ) {
    const batching = { inFlight: database.kind === "postgres" ? 4 : 1 };
    this.claims = new Batcher(async (claims) => {
      const rows = await database.prepared<Row>(CLAIM_SQL, [
        jsonb(claims.map((claim, i) => ({ i, ...claim }))),
        options.leaseMs,
        options.ttlHours,
      ]);
      const byIndex = new Map(rows.map((row) => [row.i, row]));
      return claims.map((_, i) => claimedOf(byIndex.get(i)));
    }, batching);
    this.completions = new Batcher(async (completions) => {
      const rows = await database.prepared<{ key_id: string; idempotency_key: string }>(COMPLETE_SQL, [
        jsonb(completions),
      ]);
      const kept = new Set(rows.map((row) => `${row.key_id}\n${row.idempotency_key}`));
      return completions.map((completion) => kept.has(`${completion.key_id}\n${completion.idempotency_key}`));
    }, batching);
  }

  get leaseMs(): number {
    return this.options.leaseMs;
  }

  /** Takes the key for a request under `leaseToken` if nothing is kept under it; else what is. */
  claim(scope: Scope, fingerprint: string, leaseToken: string): Promise<Claimed> {
    return this.claims.submit({
      key_id: scope.keyId,
      idempotency_key: scope.key,
      fingerprint,
      lease_token: leaseToken,
    });
  }

  /** Takes over a key whose lease or lifetime ran out, unless another request did first. */
  async takeOver(
    scope: Scope,
    fingerprint: string,
    leaseToken: string,
    previousToken: string | null,
  ): Promise<boolean> {
    const rows = await this.database.prepared(TAKE_OVER_SQL, [
      scope.keyId,
      scope.key,
      fingerprint,
      leaseToken,
      this.options.leaseMs,
      this.options.ttlHours,
      previousToken,
    ]);
    return rows.length === 1;
  }

  /** Keeps the answer; false when the lease was lost (the key was taken over meanwhile). */
  complete(scope: Scope, leaseToken: string, answer: StoredAnswer): Promise<boolean> {
    return this.completions.submit({
      key_id: scope.keyId,
      idempotency_key: scope.key,
      lease_token: leaseToken,
      status: answer.status,
      headers: answer.headers,
      body: answer.body,
    });
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

  /** Resolves when every claim and answer submitted so far is written. */
  async idle(): Promise<void> {
    await Promise.all([this.claims.idle(), this.completions.idle()]);
  }
}

type Claim = { key_id: string; idempotency_key: string; fingerprint: string; lease_token: string };
type Completion = {
  key_id: string;
  idempotency_key: string;
  lease_token: string;
  status: number;
  headers: Record<string, string>;
  body: string;
};

function claimedOf(row: Row | undefined): Claimed {
  if (!row) throw new Error("the idempotency claim returned no row for a request");
  if (row.taken) return { kind: "taken" };
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
