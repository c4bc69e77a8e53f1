import type { Clock } from "../kernel/clock.ts";
import type { Database, Rows } from "../kernel/db.ts";
import { ExclusiveMeter } from "./exclusive-meter.ts";
import { SharedMeter } from "./shared-meter.ts";

/** What one validate request asks of the meter when it is admitted. */
export type MeterRequest = {
  keyId: string;
  /** Effective monthly quota of the key; null when the plan has none. */
  quota: number | null;
  /** Bill one unit now: the request already produced a fresh definitive result. */
  charge: boolean;
  /** Hold one unit for fresh work that is about to start; settle it afterwards. */
  reserve: boolean;
  /**
   * Count the request now (the default). A batch item counts when it is finished instead
   * (`complete`), so its retries count once.
   */
  count?: boolean;
};

export type Reservation = { id: number; keyId: string; month: string };

export type MeterAdmission =
  | { ok: true; used: number; charged: boolean; reservation: Reservation | null; resetMs: number }
  | { ok: false; used: number; resetMs: number };

export type MeterUsage = { used: number; requests: number };

export type Settlement = { used: number; billed: boolean };

/** A piece of finished work (a batch item) whose billing commits together with its record. */
export type Completion = {
  keyId: string;
  /** The unit held for its fresh work; null when it needed none. */
  reservation: Reservation | null;
  /** Bill the held unit: a fresh definitive result came of the work. */
  bill: boolean;
};

/** What `complete` runs inside its transaction. */
export type CompletionWork = {
  /**
   * Locks what it will write and says which completions stand (an item cancelled or claimed by
   * another worker meanwhile does not): the others are released unbilled and not counted.
   */
  keep(rows: Rows): Promise<boolean[]>;
  /** Writes the records of the completions, with whether each was billed. */
  record(rows: Rows, billed: boolean[]): Promise<void>;
};

/**
 * The usage meter: admission against the monthly quota, reservations for fresh work, and
 * settlement. Every request is counted and every billed unit recorded durably before its
 * promise resolves; the quota is never exceeded, no unit is billed twice, and a reservation
 * never settled (a crash) is released after its lease, unbilled. See docs/decisions.md,
 * "Exact billing".
 */
export interface Meter {
  /**
   * Counts one validate request and, when asked, bills or reserves one unit — refused when
   * the quota has no unit left. Resolves once the commit that carries it is durable.
   */
  admit(request: MeterRequest): Promise<MeterAdmission>;
  /**
   * Turns a reservation into a billed unit (`bill`) or releases it. A reservation swept
   * after its lease ran out was already released to other requests and is never billed.
   */
  settle(reservation: Reservation, bill: boolean): Promise<Settlement>;
  /**
   * Finishes work in one transaction with its billing: each completion that stands counts one
   * request and, when asked and its reservation still holds its unit, bills that unit; every
   * reservation is settled. Resolves with whether each completion was billed, once committed;
   * a failure leaves nothing of it (the reservations are released).
   */
  complete(completions: Completion[], work: CompletionWork): Promise<boolean[]>;
  /** Usage of one key in the period containing `nowMs`, without counting a request. */
  usage(keyId: string, nowMs: number): Promise<MeterUsage>;
  /** Releases the reservations whose lease ran out; also runs by itself every few seconds. */
  sweepExpired(): Promise<void>;
  /** Resolves when every operation submitted so far has committed or failed. */
  idle(): Promise<void>;
  /**
   * For shutdown, once no request is served any more: waits for the last commits and releases,
   * unbilled, the reservations of requests that were cut off before settling them.
   */
  close(): Promise<void>;
}

export type MeterOptions = {
  /** How long a reservation holds its unit if it is never settled (a crashed request or instance). */
  reservationTtlMs: number;
};

/**
 * The meter for a database: on Postgres, which several instances may share, every decision
 * is taken in the database on locked rows (`SharedMeter`); on embedded PGlite, which only
 * this process can open, decisions are taken in memory and each batch is recorded with one
 * append (`ExclusiveMeter`).
 */
export function createMeter(database: Database, clock: Clock, options: MeterOptions): Meter {
  return database.kind === "pglite"
    ? new ExclusiveMeter(database, clock, options)
    : new SharedMeter(database, clock, options);
}
