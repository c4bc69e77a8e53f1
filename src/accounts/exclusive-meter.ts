import { sql } from "drizzle-orm";
import { Batcher } from "../kernel/batcher.ts";
import type { Clock } from "../kernel/clock.ts";
import type { Database, Rows } from "../kernel/db.ts";
import { hasRoom } from "./billing.ts";
import type {
  Completion,
  CompletionWork,
  Meter,
  MeterAdmission,
  MeterOptions,
  MeterRequest,
  MeterUsage,
  Reservation,
  Settlement,
} from "./meter.ts";
import { periodAt } from "./period.ts";
import { type UsageEntry, UsageLog } from "./usage-log.ts";

/** A key's month as this process holds it: the truth, since no other process writes it. */
type Counts = { used: number; reserved: number; requests: number };

type Lease = { reservation: Reservation; expiresMs: number };

/**
 * How often the usage log is folded into `usage_months`, and expired leases looked for. A fold
 * runs on the server's thread for a few milliseconds per thousand keys: rarely enough that
 * few requests wait behind it, often enough that segments stay small.
 */
const FOLD_EVERY_MS = 5_000;
const SWEEP_EVERY_MS = 10_000;

/**
 * The meter on a database only this process can open (embedded PGlite, whose data directory
 * is locked to its server). With no other writer, the counts this process holds are exact:
 * quota decisions are taken in memory, each in one synchronous step, and the outcome of every
 * request is recorded before its promise resolves — the requests of one batch as one line
 * appended to the usage log (`usage-log.ts`), where a statement per batch would stall the
 * server's thread, on which PGlite runs. Reservations live in memory only: a crash loses them,
 * unbilled, which is what a lease running out would do. Closed log segments are folded into
 * `usage_months` every few seconds, and at start whatever a crash left, before any count is
 * read: the usage of a key is its `usage_months` row once the log is folded.
 */
export class ExclusiveMeter implements Meter {
  /** Per `key|month`; a promise so that the first uses of a key share one load. */
  private readonly counts = new Map<string, Promise<Counts>>();
  private readonly leases = new Map<number, Lease>();
  private readonly loads: Batcher<{ keyId: string; month: string }, MeterUsage>;
  private readonly records: Batcher<UsageEntry, null>;
  /** Per log segment not folded yet, its entries summed per `key|month`: what its fold adds. */
  private readonly unfolded = new Map<number, Map<string, UsageEntry>>();
  private recovered: Promise<void> | null = null;
  private folding: Promise<void> | null = null;
  private nextReservation = 1;
  private lastFoldMs: number;
  private lastSweepMs = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: MeterOptions,
    private readonly log: UsageLog = UsageLog.of(database.dataDir),
  ) {
    this.loads = new Batcher((items) => this.load(items));
    this.records = new Batcher((entries) => this.record(entries));
    // The start folds what an earlier process left; the next fold is due a period later.
    this.lastFoldMs = clock.now();
  }

  async admit(request: MeterRequest): Promise<MeterAdmission> {
    const { keyId } = request;
    const { month, resetMs } = periodAt(this.clock.now());
    const counts = await this.countsOf(keyId, month);
    // From here to the record submit nothing awaits: the decision and its effect are one step.
    const room = hasRoom(counts, request.quota);
    let admission: MeterAdmission;
    let units = 0;
    if ((request.reserve || request.charge) && !room) {
      admission = { ok: false, used: counts.used, resetMs };
    } else if (request.reserve) {
      const reservation = { id: this.nextReservation++, keyId, month };
      this.leases.set(reservation.id, {
        reservation,
        expiresMs: this.clock.now() + this.options.reservationTtlMs,
      });
      counts.reserved += 1;
      admission = { ok: true, used: counts.used, charged: false, reservation, resetMs };
    } else {
      units = request.charge ? 1 : 0;
      counts.used += units;
      admission = { ok: true, used: counts.used, charged: request.charge, reservation: null, resetMs };
    }
    const requests = request.count === false ? 0 : 1;
    counts.requests += requests;
    try {
      await this.records.submit({ keyId, month, requests, units });
    } catch (error) {
      // Not recorded, so not done: the request is neither counted nor billed, nor holds a unit.
      counts.requests -= requests;
      counts.used -= units;
      if (admission.ok && admission.reservation) this.release(admission.reservation.id, counts);
      throw error;
    }
    return admission;
  }

  async settle(reservation: Reservation, bill: boolean): Promise<Settlement> {
    const counts = await this.countsOf(reservation.keyId, reservation.month);
    // Swept already: its unit went back to the quota and may have been used since.
    if (!this.release(reservation.id, counts)) return { used: counts.used, billed: false };
    if (!bill) return { used: counts.used, billed: false };
    counts.used += 1;
    const used = counts.used;
    try {
      await this.records.submit({
        keyId: reservation.keyId,
        month: reservation.month,
        requests: 0,
        units: 1,
      });
    } catch (error) {
      counts.used -= 1;
      throw error;
    }
    return { used, billed: true };
  }

  /**
   * Bills in the same PGlite transaction as the work, adding to `usage_months` directly rather
   * than through the usage log, which cannot commit together with a row. The counts in memory
   * follow once it has committed; the leases are taken first, so that no sweep hands their
   * units out while it runs.
   */
  async complete(completions: Completion[], work: CompletionWork): Promise<boolean[]> {
    const current = periodAt(this.clock.now()).month;
    const months = completions.map((completion) => completion.reservation?.month ?? current);
    const counts = await Promise.all(
      completions.map(({ keyId }, index) => this.countsOf(keyId, months[index] as string)),
    );
    const held = completions.map(
      ({ reservation }) => reservation !== null && this.leases.delete(reservation.id),
    );
    let kept: boolean[] = [];
    let billed: boolean[];
    try {
      billed = await this.database.transaction(async (rows) => {
        kept = await work.keep(rows);
        const outcome = completions.map((completion, index) =>
          Boolean(kept[index] && completion.bill && held[index]),
        );
        const sums = new Map<string, UsageEntry>();
        completions.forEach(({ keyId }, index) => {
          if (!kept[index]) return;
          addEntries(sums, [
            { keyId, month: months[index] as string, requests: 1, units: outcome[index] ? 1 : 0 },
          ]);
        });
        await addUsage(rows, sums);
        await work.record(rows, outcome);
        return outcome;
      });
    } finally {
      completions.forEach((_, index) => {
        if (held[index]) (counts[index] as Counts).reserved -= 1;
      });
    }
    completions.forEach((_, index) => {
      const count = counts[index] as Counts;
      if (kept[index]) count.requests += 1;
      if (billed[index]) count.used += 1;
    });
    return billed;
  }

  async usage(keyId: string, nowMs: number): Promise<MeterUsage> {
    const { used, requests } = await this.countsOf(keyId, periodAt(nowMs).month);
    return { used, requests };
  }

  async sweepExpired(): Promise<void> {
    const nowMs = this.clock.now();
    for (const [id, lease] of this.leases) {
      if (lease.expiresMs > nowMs) continue;
      const { keyId, month } = lease.reservation;
      this.release(id, await this.countsOf(keyId, month));
    }
    // Months before the previous one are done with (leases last a minute): forget their counts.
    const previous = periodAt(periodAt(nowMs).startMs - 1).month;
    for (const id of this.counts.keys()) {
      if (id.slice(id.indexOf("|") + 1) < previous) this.counts.delete(id);
    }
  }

  async idle(): Promise<void> {
    await Promise.all([this.loads.idle(), this.records.idle()]);
  }

  /** Reservations held in memory vanish with the process; the log is folded once more. */
  async close(): Promise<void> {
    await this.idle();
    // Only tidying: the next start folds what is left.
    await this.fold().catch(() => {});
    this.log.closeSegment();
  }

  /** Closes the log segment being written and folds every closed one into `usage_months`. */
  fold(): Promise<void> {
    if (!this.folding) {
      this.folding = this.recover()
        .then(() => {
          this.log.closeSegment();
          return this.foldSegments();
        })
        .finally(() => {
          this.folding = null;
        });
    }
    return this.folding;
  }

  /**
   * Folds what an earlier process left in the log, once, before any count is read; then new
   * segments are numbered after the folded ones. A failure is retried by the next caller.
   */
  private recover(): Promise<void> {
    if (!this.recovered) {
      this.recovered = (async () => {
        await this.foldSegments();
        const [state] = await this.database.rows<{ folded_through: string | number }>(
          sql`SELECT folded_through FROM usage_log_state WHERE id = 1`,
        );
        this.log.startAt(Number(state?.folded_through ?? 0) + 1);
      })();
      this.recovered.catch(() => {
        this.recovered = null;
      });
    }
    return this.recovered;
  }

  /**
   * Adds each closed segment's sums to `usage_months`, oldest first, in one transaction that
   * also raises `folded_through` — unless the segment is folded already (a crash between that
   * commit and the file's removal) — then removes the file.
   */
  private async foldSegments(): Promise<void> {
    for (const segment of this.log.closedSegments()) {
      const sums = this.unfolded.get(segment) ?? sumEntries(this.log.read(segment));
      await this.database.transaction(async (rows) => {
        // Only segment files can outlive a process; a log in memory (an in-memory database,
        // which tests share between meters) has nothing to claim.
        if (this.log.persistent) {
          const claimed = await rows(sql`
            INSERT INTO usage_log_state (id, folded_through) VALUES (1, ${segment})
            ON CONFLICT (id) DO UPDATE SET folded_through = EXCLUDED.folded_through
            WHERE usage_log_state.folded_through < EXCLUDED.folded_through
            RETURNING id`);
          if (claimed.length === 0) return;
        }
        await addUsage(rows, sums);
      });
      this.log.remove(segment);
      this.unfolded.delete(segment);
    }
  }

  /** Ends a lease and gives its unit back; false when it had ended already. */
  private release(id: number, counts: Counts): boolean {
    if (!this.leases.delete(id)) return false;
    counts.reserved -= 1;
    return true;
  }

  private countsOf(keyId: string, month: string): Promise<Counts> {
    const id = `${keyId}|${month}`;
    let counts = this.counts.get(id);
    if (!counts) {
      counts = this.loads
        .submit({ keyId, month })
        .then(({ used, requests }) => ({ used, requests, reserved: 0 }));
      this.counts.set(id, counts);
      // A failed load is tried again by the next request rather than remembered.
      counts.catch(() => this.counts.delete(id));
    }
    return counts;
  }

  /** The recorded usage of many keys and months, once the log of an earlier process is folded. */
  private async load(items: { keyId: string; month: string }[]): Promise<MeterUsage[]> {
    await this.recover();
    const rows = await this.database.prepared<{
      key_id: string;
      month: string;
      used: number;
      requests: number;
    }>(LOAD_SQL, [items.map((item) => item.keyId), items.map((item) => item.month)]);
    const found = new Map(rows.map((row) => [`${row.key_id}|${row.month}`, row]));
    return items.map(({ keyId, month }) => {
      const row = found.get(`${keyId}|${month}`);
      return { used: row?.used ?? 0, requests: row?.requests ?? 0 };
    });
  }

  /** One log line for a batch, its entries summed per key and month. */
  private async record(entries: UsageEntry[]): Promise<null[]> {
    const sums = sumEntries(entries);
    const segment = this.log.append([...sums.values()]);
    const pending = this.unfolded.get(segment) ?? new Map<string, UsageEntry>();
    addEntries(pending, sums.values());
    this.unfolded.set(segment, pending);
    this.upkeepWhenDue();
    return entries.map(() => null);
  }

  /** Folds the log and sweeps leases when they are due; a failure is retried next time. */
  private upkeepWhenDue(): void {
    const nowMs = this.clock.now();
    if (nowMs - this.lastFoldMs >= FOLD_EVERY_MS) {
      this.lastFoldMs = nowMs;
      this.fold().catch(() => {
        this.lastFoldMs = 0;
      });
    }
    if (nowMs - this.lastSweepMs >= SWEEP_EVERY_MS) {
      this.lastSweepMs = nowMs;
      void this.sweepExpired();
    }
  }
}

/** Adds requests and billed units to `usage_months`, per key and month. */
async function addUsage(rows: Rows, sums: Map<string, UsageEntry>): Promise<void> {
  if (sums.size === 0) return;
  await rows(sql`
    INSERT INTO usage_months (key_id, month, requests, used)
    SELECT d."keyId", d.month::date, d.requests, d.units
    FROM jsonb_to_recordset(${JSON.stringify([...sums.values()])}::jsonb)
      AS d("keyId" text, month text, requests int, units int)
    ON CONFLICT (key_id, month) DO UPDATE SET
      requests = usage_months.requests + EXCLUDED.requests,
      used = usage_months.used + EXCLUDED.used`);
}

/** Entries summed per key and month. */
function sumEntries(entries: Iterable<UsageEntry>): Map<string, UsageEntry> {
  return addEntries(new Map(), entries);
}

function addEntries(sums: Map<string, UsageEntry>, entries: Iterable<UsageEntry>): Map<string, UsageEntry> {
  for (const entry of entries) {
    const id = `${entry.keyId}|${entry.month}`;
    const sum = sums.get(id);
    if (sum) {
      sum.requests += entry.requests;
      sum.units += entry.units;
    } else {
      sums.set(id, { ...entry });
    }
  }
  return sums;
}

const LOAD_SQL = `
  SELECT d.key_id, to_char(d.month, 'YYYY-MM-DD') AS month,
    coalesce(u.used, 0) AS used, coalesce(u.requests, 0) AS requests
  FROM unnest($1::text[], $2::date[]) AS d(key_id, month)
  LEFT JOIN usage_months u ON u.key_id = d.key_id AND u.month = d.month`;
