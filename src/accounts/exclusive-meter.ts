import { Batcher } from "../batch.ts";
import type { Clock } from "../clock.ts";
import type { Database } from "../db.ts";
import { hasRoom } from "./billing.ts";
import type {
  Meter,
  MeterAdmission,
  MeterOptions,
  MeterRequest,
  MeterUsage,
  Reservation,
  Settlement,
} from "./meter.ts";
import { periodAt } from "./period.ts";

/** A key's month as this process holds it: the truth, since no other process writes it. */
type Counts = { used: number; reserved: number; requests: number };

/** Usage to record: requests counted and units billed for a key in a month. */
type Entry = { keyId: string; month: string; requests: number; units: number };

type Lease = { reservation: Reservation; expiresMs: number };

/** How often the journal is folded into `usage_months`, and expired leases looked for. */
const FOLD_EVERY_MS = 1_000;
const SWEEP_EVERY_MS = 10_000;

/**
 * The meter on a database only this process can open (embedded PGlite, whose data directory
 * is locked to its server). With no other writer, the counts this process holds are exact:
 * quota decisions are taken in memory, each in one synchronous step, and the outcome of every
 * request is recorded before its promise resolves — the requests of one batch as one row
 * appended to `usage_journal`, a single cheap statement where row-by-row updates would stall
 * the server's thread. Reservations live in memory only: a crash loses them, unbilled, which is
 * what a lease running out would do. The journal is folded into `usage_months` every
 * second; reads of a key's usage add up both, so nothing depends on when the fold runs.
 */
export class ExclusiveMeter implements Meter {
  /** Per `key|month`; a promise so that the first uses of a key share one load. */
  private readonly counts = new Map<string, Promise<Counts>>();
  private readonly leases = new Map<number, Lease>();
  private readonly loads: Batcher<{ keyId: string; month: string }, MeterUsage>;
  private readonly journal: Batcher<Entry, null>;
  private nextReservation = 1;
  private lastFoldMs = 0;
  private lastSweepMs = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: MeterOptions,
  ) {
    this.loads = new Batcher((items) => this.load(items));
    this.journal = new Batcher((entries) => this.record(entries));
  }

  async admit(request: MeterRequest): Promise<MeterAdmission> {
    const { keyId } = request;
    const { month, resetMs } = periodAt(this.clock.now());
    const counts = await this.countsOf(keyId, month);
    // From here to the journal submit nothing awaits: the decision and its effect are one step.
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
    counts.requests += 1;
    try {
      await this.journal.submit({ keyId, month, requests: 1, units });
    } catch (error) {
      // Not recorded, so not done: the request is neither counted nor billed, nor holds a unit.
      counts.requests -= 1;
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
      await this.journal.submit({
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
    await Promise.all([this.loads.idle(), this.journal.idle()]);
  }

  /** Reservations held in memory vanish with the process; the journal is folded once more. */
  async close(): Promise<void> {
    await this.idle();
    // Only tidying: usage is read from both tables, so a journal left unfolded loses nothing.
    await this.fold().catch(() => {});
  }

  /** Moves the journal into `usage_months` in one statement: the sum of both never changes. */
  async fold(): Promise<void> {
    await this.database.prepared(FOLD_SQL, []);
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

  /** The recorded usage of many keys and months: `usage_months` plus the unfolded journal. */
  private async load(items: { keyId: string; month: string }[]): Promise<MeterUsage[]> {
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

  /** One journal row for a batch, its entries summed per key and month. */
  private async record(entries: Entry[]): Promise<null[]> {
    const sums = new Map<string, Entry>();
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
    const rows = [...sums.values()];
    await this.database.prepared(JOURNAL_SQL, [
      rows.map((row) => row.keyId),
      rows.map((row) => row.month),
      rows.map((row) => row.requests),
      rows.map((row) => row.units),
    ]);
    this.upkeepWhenDue();
    return entries.map(() => null);
  }

  /** Folds the journal and sweeps leases when they are due; a failure is retried next time. */
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

const JOURNAL_SQL = `
  INSERT INTO usage_journal (key_ids, months, requests, units)
  VALUES ($1::text[], $2::date[], $3::int[], $4::int[])`;

/** The entries of journal rows `source`, summed to one row per key and month. */
const entrySums = (source: string) => `
  SELECT e.key_id, e.month, sum(e.requests)::int AS requests, sum(e.units)::int AS units
  FROM ${source} j, unnest(j.key_ids, j.months, j.requests, j.units) AS e(key_id, month, requests, units)
  GROUP BY e.key_id, e.month`;

const LOAD_SQL = `
  SELECT d.key_id, to_char(d.month, 'YYYY-MM-DD') AS month,
    coalesce(u.used, 0) + coalesce(j.units, 0) AS used,
    coalesce(u.requests, 0) + coalesce(j.requests, 0) AS requests
  FROM unnest($1::text[], $2::date[]) AS d(key_id, month)
  LEFT JOIN usage_months u ON u.key_id = d.key_id AND u.month = d.month
  LEFT JOIN (${entrySums("usage_journal")}) j ON j.key_id = d.key_id AND j.month = d.month`;

const FOLD_SQL = `
  WITH gone AS (
    DELETE FROM usage_journal RETURNING key_ids, months, requests, units
  ), sums AS (${entrySums("gone")})
  INSERT INTO usage_months (key_id, month, requests, used)
  SELECT key_id, month, requests, units FROM sums
  ON CONFLICT (key_id, month) DO UPDATE SET
    requests = usage_months.requests + EXCLUDED.requests,
    used = usage_months.used + EXCLUDED.used`;
