import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

/** Requests counted and units billed for a key in a month (`YYYY-MM-01`). */
export type UsageEntry = { keyId: string; month: string; requests: number; units: number };

const SEGMENT = /^(\d{12})\.log$/;

/**
 * The embedded meter's record of what it answered: an append-only log in numbered segment
 * files under the data directory, one line (a JSON array of entries) per batch of requests.
 * A line is written to the operating system before any answer of its batch is sent — the
 * durability PGlite's own commits have (its fsync is a no-op under Node's file system), for
 * one write system call instead of a statement run by PGlite on the server's thread. Closed
 * segments are folded into `usage_months` and deleted (`ExclusiveMeter`). An in-memory
 * database, which keeps nothing, gets a log in memory.
 */
export class UsageLog {
  /** The segment being written: its file descriptor, or -1 for a log in memory. */
  private fd: number | null = null;
  private open = 0;
  private nextSegment = 0;

  /**
   * The segments of a log in memory, by number only: what they hold never needs reading back,
   * since nothing outlives the process that wrote them and that process keeps their sums.
   */
  private readonly memory = new Set<number>();

  private constructor(
    /** Where the segment files are; null for a log in memory. */
    private readonly dir: string | null,
  ) {}

  /** The log of an embedded database: `DATA_DIR/usage-log`, or in memory for an in-memory database. */
  static of(dataDir: string | null): UsageLog {
    if (dataDir === null) return new UsageLog(null);
    const dir = join(dataDir, "usage-log");
    mkdirSync(dir, { recursive: true });
    return new UsageLog(dir);
  }

  /** Whether segments are files, which outlive the process. */
  get persistent(): boolean {
    return this.dir !== null;
  }

  /** Segments not being written, oldest first. */
  closedSegments(): number[] {
    const all =
      this.dir === null
        ? [...this.memory]
        : readdirSync(this.dir)
            .map((name) => SEGMENT.exec(name)?.[1])
            .filter((digits): digits is string => digits !== undefined)
            .map(Number);
    return all.filter((segment) => !(this.fd !== null && segment === this.open)).sort((a, b) => a - b);
  }

  /** Numbers new segments from `first` on; called once the folded ones are known. */
  startAt(first: number): void {
    this.nextSegment = first;
  }

  /**
   * Appends one line, in the open segment or a new one. A failed write closes the segment,
   * so that a torn line can only be a segment's last, which `read` skips: it was never
   * acknowledged.
   */
  append(entries: UsageEntry[]): number {
    if (this.fd === null) {
      if (this.nextSegment === 0) throw new Error("the usage log is not started");
      this.open = this.nextSegment++;
      this.fd = this.dir === null ? -1 : openSync(this.path(this.open), "a");
    }
    if (this.dir === null) {
      this.memory.add(this.open);
      return this.open;
    }
    const line = Buffer.from(
      `${JSON.stringify(entries.map((e) => [e.keyId, e.month, e.requests, e.units]))}\n`,
    );
    try {
      for (let written = 0; written < line.length; ) {
        written += writeSync(this.fd, line, written, line.length - written);
      }
    } catch (error) {
      this.closeSegment();
      throw error;
    }
    return this.open;
  }

  /** Closes the open segment, if any: the next append starts a new one. */
  closeSegment(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    if (fd >= 0) closeSync(fd);
  }

  /** The entries of a closed segment file, as written: what a crashed process left. */
  read(segment: number): UsageEntry[] {
    if (this.dir === null) throw new Error("a usage log in memory keeps no entries to read back");
    const lines = readFileSync(this.path(segment), "utf8").split("\n");
    // After the last newline: nothing, or a line torn by a crash during its write.
    lines.pop();
    return lines.flatMap((line) =>
      (JSON.parse(line) as [string, string, number, number][]).map(([keyId, month, requests, units]) => ({
        keyId,
        month,
        requests,
        units,
      })),
    );
  }

  remove(segment: number): void {
    if (this.dir === null) this.memory.delete(segment);
    else unlinkSync(this.path(segment));
  }

  private path(segment: number): string {
    return join(this.dir ?? "", `${String(segment).padStart(12, "0")}.log`);
  }
}
