import { type SQL, sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/** The plans customers subscribe to; written from `src/accounts/plans.ts` at every start. */
export const plans = pgTable("plans", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  priceUsdPerMonth: numeric("price_usd_per_month", { precision: 10, scale: 2, mode: "number" }).notNull(),
  /** Billable validations per UTC month; null = no quota (gateway plans bill at the gateway). */
  monthlyQuota: integer("monthly_quota"),
  ratePerMinute: integer("rate_per_minute").notNull(),
});

/**
 * API keys. Direct keys carry the SHA-256 of their secret (never the secret); gateway
 * subscribers have no secret and are identified by the subscriber id the gateway forwards.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: ["direct", "gateway"] }).notNull(),
    secretHash: text("secret_hash"),
    /**
     * 1: a secret issued without a check (refused without a lookup only when its hash is not
     * among the legacy keys); 2: a secret whose check is verified before any lookup. Old code
     * inserting keys gets 1 by default.
     */
    secretVersion: smallint("secret_version").notNull().default(1),
    gatewaySubscriber: text("gateway_subscriber"),
    name: text("name"),
    planId: text("plan_id")
      .notNull()
      .references(() => plans.id),
    /** Overrides the plan's monthly quota for this key. */
    monthlyQuota: integer("monthly_quota"),
    /** Overrides the plan's per-minute limit for this key. */
    ratePerMinute: integer("rate_per_minute"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    uniqueIndex("api_keys_secret_hash_idx").on(table.secretHash),
    uniqueIndex("api_keys_gateway_subscriber_idx").on(table.gatewaySubscriber),
    check(
      "api_keys_identity_check",
      sql`(${table.kind} = 'direct' AND ${table.secretHash} IS NOT NULL AND ${table.gatewaySubscriber} IS NULL)
       OR (${table.kind} = 'gateway' AND ${table.secretHash} IS NULL AND ${table.gatewaySubscriber} IS NOT NULL)`,
    ),
    check("api_keys_quota_check", sql`${table.monthlyQuota} IS NULL OR ${table.monthlyQuota} >= 0`),
    check("api_keys_rate_check", sql`${table.ratePerMinute} IS NULL OR ${table.ratePerMinute} > 0`),
  ],
);

/** Usage per key and UTC month: `used` billable validations, `requests` all validate requests. */
export const usageMonths = pgTable(
  "usage_months",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id),
    month: date("month", { mode: "string" }).notNull(),
    used: integer("used").notNull().default(0),
    /**
     * Live reservations of this key and month, kept beside `used` so every quota decision
     * reads one locked row: a count over `reservations` taken in a statement that waited
     * for that lock would see the table as it was before the wait.
     */
    reserved: integer("reserved").notNull().default(0),
    requests: integer("requests").notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.keyId, table.month] }),
    check("usage_months_used_check", sql`${table.used} >= 0`),
    check("usage_months_reserved_check", sql`${table.reserved} >= 0`),
  ],
);

/**
 * Units held for requests whose fresh work is under way (and counted in
 * `usage_months.reserved`). A reservation either becomes a billed unit or is deleted; one
 * left behind by a crashed instance is swept once `expires_at` has passed and never billed.
 */
export const reservations = pgTable(
  "reservations",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id),
    month: date("month", { mode: "string" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    index("reservations_key_month_idx").on(table.keyId, table.month, table.expiresAt),
    // The sweep looks for expired leases across all keys.
    index("reservations_expires_at_idx").on(table.expiresAt),
  ],
);

/** Per-minute request counts, used when several instances share Postgres but no Redis. */
export const rateWindows = pgTable(
  "rate_windows",
  {
    keyId: text("key_id").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true, mode: "date" }).notNull(),
    count: integer("count").notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.keyId, table.windowStart] }),
    // Old windows are deleted by their start.
    index("rate_windows_window_start_idx").on(table.windowStart),
  ],
);

/**
 * How far the embedded server's usage log (`src/accounts/usage-log.ts`) has been folded into
 * `usage_months`: every segment numbered up to `folded_through` is in there. One row. Raised
 * in the same transaction that adds a segment's sums, so a segment is never added twice,
 * whatever a crash leaves behind.
 */
export const usageLogState = pgTable("usage_log_state", {
  id: integer("id").primaryKey(),
  foldedThrough: bigint("folded_through", { mode: "number" }).notNull(),
});

/**
 * The shared key-value store when no Redis is configured (`src/store/database.ts`): the VAT
 * cache with its last-known-good copies, and VIES's status. Rows expire by the database's
 * clock and are swept in the background.
 */
export const cacheEntries = pgTable(
  "cache_entries",
  {
    key: text("key").primaryKey(),
    value: text("value").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  // The sweep deletes by expiry.
  (table) => [index("cache_entries_expires_at_idx").on(table.expiresAt)],
);

/**
 * The slots of the per-member-state cap on upstream calls (VIES_MAX_CONCURRENT_PER_STATE) when
 * instances share Postgres without Redis (`src/vat/leases.ts`): a row per slot, numbered below
 * the cap, so no more leases than the cap can be live for one key. A lease lapses at
 * `expires_at` unless its holder renews it, so a dead instance's slots come back; a lapsed row
 * is taken over in place, which keeps the table at most a cap's rows per key.
 */
export const sharedLeases = pgTable(
  "shared_leases",
  {
    key: text("key").notNull(),
    slot: integer("slot").notNull(),
    leaseId: text("lease_id").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.key, table.slot] })],
);

/**
 * Secrets of the deployment, generated on its first start and shared by its instances:
 * `key_check`, the key of the check inside API keys (`src/accounts/keys.ts`).
 */
export const serviceSecrets = pgTable("service_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * Batches of VAT numbers and IBANs validated in the background (`src/batches/`). The counts
 * are kept up to date in the transaction that finishes each item, so reading a batch is one
 * row.
 */
export const batches = pgTable(
  "batches",
  {
    id: text("id").primaryKey(),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id),
    status: text("status", { enum: ["queued", "running", "completed", "cancelled"] })
      .notNull()
      .default("queued"),
    total: integer("total").notNull(),
    done: integer("done").notNull().default(0),
    valid: integer("valid").notNull().default(0),
    invalid: integer("invalid").notNull().default(0),
    failed: integer("failed").notNull().default(0),
    billed: integer("billed").notNull().default(0),
    webhookUrl: text("webhook_url"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    index("batches_key_id_idx").on(table.keyId, table.createdAt),
    // Workers look for the batches with work left; the retention sweep for old finished ones.
    index("batches_active_idx").on(table.createdAt).where(sql`${table.status} IN ('queued', 'running')`),
    index("batches_completed_at_idx").on(table.completedAt),
    // A key's active batches are counted against its plan's limit at every POST /batches.
    index("batches_key_active_idx").on(table.keyId).where(sql`${table.status} IN ('queued', 'running')`),
  ],
);

/**
 * The items of a key's batches created on `day` (UTC, the database's clock). One row per key:
 * the row lock that adds a batch's items also orders the key's concurrent POST /batches, so
 * the count of its active batches each one reads is exact (`src/batches/volume.ts`).
 */
export const batchVolume = pgTable("batch_volume", {
  keyId: text("key_id")
    .primaryKey()
    .references(() => apiKeys.id),
  day: date("day", { mode: "string" }).notNull(),
  items: integer("items").notNull(),
});

/**
 * The items of a batch, in input order. A pending item is claimed by a worker with a lease
 * (`lease_token`, `lease_until`); the transaction that finishes it checks the token, so an
 * item whose lease ran out and was claimed again is finished (and billed) once.
 */
export const batchItems = pgTable(
  "batch_items",
  {
    batchId: text("batch_id")
      .notNull()
      .references(() => batches.id, { onDelete: "cascade" }),
    index: integer("idx").notNull(),
    reference: text("reference"),
    vat: text("vat"),
    /**
     * The prefix of `vat` as the format check reads it (`EL` for `gr…`), whose authority's slots
     * the item will wait for; null without a VAT number or with one the format check refuses.
     * Claims hold back the items of a member state at a worker's cap for it.
     */
    vatPrefix: text("vat_prefix"),
    iban: text("iban"),
    /** The details to match against the VAT number's record (`match` of the item), or null. */
    match: jsonb("match"),
    /**
     * A repeat: the index of the batch's first item with the same VAT number and `match`, whose
     * answer this item gets instead of asking the authority itself. It waits, not due, until that
     * item is finished.
     */
    repeatOf: integer("repeat_of"),
    status: text("status", { enum: ["pending", "done", "failed", "cancelled"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** Set at the first upstream failure: retries stop here. */
    retryUntil: timestamp("retry_until", { withTimezone: true, mode: "date" }),
    leaseToken: text("lease_token"),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    vatResult: jsonb("vat_result"),
    ibanResult: jsonb("iban_result"),
    billable: boolean("billable").notNull().default(false),
    error: jsonb("error"),
    completedAt: timestamp("completed_at", { withTimezone: true, mode: "date" }),
  },
  (table) => [
    primaryKey({ columns: [table.batchId, table.index] }),
    // A claim takes a batch's due items, earliest first; a unit's next due time is the first entry.
    index("batch_items_due_idx")
      .on(table.batchId, table.nextAttemptAt, table.index)
      .where(sql`${table.status} = 'pending'`),
    // …and each of its member states' first (src/batches/due.ts), without reading the items of a
    // state at its cap.
    index("batch_items_state_due_idx")
      .on(table.batchId, table.vatPrefix, table.nextAttemptAt, table.index)
      .where(sql`${table.status} = 'pending'`),
    // Finishing an item makes its waiting repeats due.
    index("batch_items_repeats_idx")
      .on(table.batchId, table.repeatOf)
      .where(sql`${table.repeatOf} IS NOT NULL AND ${table.status} = 'pending'`),
  ],
);

/**
 * When each unit of background work (a batch's items, a key's webhook messages) may next have
 * something due: at most the earliest `next_attempt_at` of its pending work, never later.
 * Workers look only at due units (`src/background/due-units.ts`), so what waits — a batch whose
 * member state is down, a message in backoff — costs no statement until its time comes.
 */
export const workDue = pgTable(
  "work_due",
  {
    /** Which work: `batch_items`, `webhooks`. */
    queue: text("queue").notNull(),
    /** The unit within it: a batch id, a key id. */
    unit: text("unit").notNull(),
    /** Whose work it is: units are taken in turn by key. */
    keyId: text("key_id").notNull(),
    dueAt: timestamp("due_at", { withTimezone: true, mode: "date" }).notNull(),
    /** Counts the times work was made due sooner: a settle that read an older count does not apply. */
    marks: integer("marks").notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.queue, table.unit] }),
    index("work_due_due_idx").on(table.queue, table.dueAt),
  ],
);

/**
 * The record of every VAT number the authority answered fresh, from /validate or a batch
 * item: the proof a customer shows an auditor. Kept VALIDATION_RECORD_DAYS.
 */
export const validationRecords = pgTable(
  "validation_records",
  {
    /** Per key: a request id may come from the caller's proxy, so two keys may use the same. */
    requestId: text("request_id").notNull(),
    keyId: text("key_id").notNull(),
    vatNumber: text("vat_number").notNull(),
    valid: boolean("valid").notNull(),
    name: text("name"),
    address: text("address"),
    checkedAt: timestamp("checked_at", { withTimezone: true, mode: "date" }).notNull(),
    consultationNumber: text("consultation_number"),
    source: text("source").notNull(),
    /** The details sent to be matched and the result (`{sent, result}`), or null. */
    match: jsonb("match"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.keyId, table.requestId] }),
    index("validation_records_created_at_idx").on(table.createdAt),
  ],
);

/** The secret each key's webhooks are signed with (Standard Webhooks, `whsec_…`). */
export const webhookSecrets = pgTable("webhook_secrets", {
  keyId: text("key_id")
    .primaryKey()
    .references(() => apiKeys.id),
  secret: text("secret").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * VAT numbers a key watches (`src/monitors/`): each is checked again every `interval_days`, and
 * a change between two answers becomes an event. `next_check_at` is when a worker takes it up
 * next — its regular round (`due_at`), later while its member state is down or its key's quota
 * is used up, null while it is paused — on the service's clock; a worker holds it under a lease
 * (`lease_token`, `lease_until`, on the database's clock) like a batch item, and the transaction
 * that finishes a check checks the token, so a check is finished, billed and diffed once.
 */
export const monitors = pgTable(
  "monitors",
  {
    id: text("id").primaryKey(),
    /** Creation order: the cursor of the key's list. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id),
    /** Normalized, with its prefix (`NL854265259B01`). */
    vatNumber: text("vat_number").notNull(),
    reference: text("reference"),
    /** The details to match against the number's record at every check, or null. */
    match: jsonb("match"),
    intervalDays: integer("interval_days").notNull(),
    status: text("status", { enum: ["active", "paused"] })
      .notNull()
      .default("active"),
    webhookUrl: text("webhook_url"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    lastCheckedAt: timestamp("last_checked_at", { withTimezone: true, mode: "date" }),
    /** The last definitive answer (a VatResult), which the next one is compared with. */
    lastResult: jsonb("last_result"),
    /** When its next regular round is due; retries and quota waits do not move it. */
    dueAt: timestamp("due_at", { withTimezone: true, mode: "date" }).notNull(),
    nextCheckAt: timestamp("next_check_at", { withTimezone: true, mode: "date" }),
    /** Attempts of the round under way that met an outage, and when the first of them did. */
    attempts: integer("attempts").notNull().default(0),
    retrySince: timestamp("retry_since", { withTimezone: true, mode: "date" }),
    leaseToken: text("lease_token"),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    /** Checks finished: numbers the validation records of its fresh ones. */
    checks: integer("checks").notNull().default(0),
  },
  (table) => [
    // A number is watched once per key.
    uniqueIndex("monitors_key_vat_idx").on(table.keyId, table.vatNumber),
    index("monitors_key_seq_idx").on(table.keyId, table.seq),
    index("monitors_key_status_seq_idx").on(table.keyId, table.status, table.seq),
    // Workers find a key's due checks here, earliest first, never by scanning its monitors
    // (which keys have any due is in `work_due`).
    index("monitors_key_next_check_idx")
      .on(table.keyId, table.nextCheckAt)
      .where(sql`${table.nextCheckAt} IS NOT NULL`),
  ],
);

/**
 * What changed between two answers of a monitor: `vat.registration_changed`,
 * `vat.details_changed`, `vat.match_changed`. `payload` is the webhook body, as delivered.
 */
export const monitorEvents = pgTable(
  "monitor_events",
  {
    id: text("id").primaryKey(),
    /** Order of the events: the cursor of a monitor's history. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    monitorId: text("monitor_id")
      .notNull()
      .references(() => monitors.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    payload: text("payload").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [index("monitor_events_monitor_seq_idx").on(table.monitorId, table.seq)],
);

/**
 * The host a webhook message goes to, from its URL (stored normalized: lower case, IPv6 in
 * brackets; another port of it is the same host). Attempts are capped per host, so claims read a
 * key's messages host by host, through the index on this expression.
 */
export const webhookHost = (url: SQL | AnyPgColumn) =>
  sql`coalesce(substring(${url} from '^[a-z][a-z0-9+.-]*://([[][^]]*[]]|[^:/?#]*)'), '')`;

/**
 * Webhook messages to deliver: one per batch that completed or was cancelled with a
 * `webhook_url`, and one per event of a monitor with one (its id is the event's), retried with
 * backoff until `give_up_at`. Claimed with a lease like batch items.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    batchId: text("batch_id").references(() => batches.id, { onDelete: "cascade" }),
    monitorId: text("monitor_id").references(() => monitors.id, { onDelete: "cascade" }),
    keyId: text("key_id").notNull(),
    url: text("url").notNull(),
    /** The signed body, as sent on every attempt. */
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatus: integer("last_status"),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true, mode: "date" }),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    giveUpAt: timestamp("give_up_at", { withTimezone: true, mode: "date" }).notNull(),
    leaseToken: text("lease_token"),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("webhook_deliveries_batch_idx").on(table.batchId),
    // A monitor's webhook state is that of its latest message.
    index("webhook_deliveries_monitor_idx").on(table.monitorId, table.createdAt),
    check(
      "webhook_deliveries_subject_check",
      sql`(${table.batchId} IS NULL) <> (${table.monitorId} IS NULL)`,
    ),
    // Claims take a key's due messages, earliest first (src/webhooks/claims.ts)…
    index("webhook_deliveries_key_due_idx")
      .on(table.keyId, table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    // …and each of its hosts' first, without reading the messages of a host at its cap.
    index("webhook_deliveries_key_host_due_idx")
      .on(table.keyId, webhookHost(table.url), table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
  ],
);

/**
 * Answers kept for the `Idempotency-Key` of a request (`src/idempotency/`), per API key: while
 * the first request runs, a lease (`lease_token`, `lease_until`, renewed as it runs); once it
 * is answered, the answer to replay. Kept until `expires_at` (IDEMPOTENCY_TTL_HOURS).
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    keyId: text("key_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    /** SHA-256 of the route and the request as it parsed; another request under the key is refused. */
    fingerprint: text("fingerprint").notNull(),
    /** Held by the request that runs; null once it is answered. */
    leaseToken: text("lease_token"),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "date" }),
    /** The answer: null while the first request runs. */
    status: smallint("status"),
    headers: jsonb("headers"),
    body: text("body"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.keyId, table.idempotencyKey] }),
    // The retention sweep deletes by expiry.
    index("idempotency_keys_expires_at_idx").on(table.expiresAt),
  ],
);
