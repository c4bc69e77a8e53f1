import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * Embedded Postgres must be opened by one process at a time. The owner writes its pid to
 * `DATA_DIR/owner.pid`; a file left by a process that is gone is taken over.
 */
export class DataDirLock {
  private constructor(private readonly path: string) {}

  static acquire(dataDir: string, role: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, "owner.pid");
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, "wx", 0o600);
        writeSync(fd, `${process.pid} ${role}\n`);
        closeSync(fd);
        return new DataDirLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const owner = DataDirLock.owner(dataDir);
        if (owner !== null) {
          throw new Error(
            `${dataDir} is in use by ${owner.role} (pid ${owner.pid}); stop it or use DATABASE_URL`,
          );
        }
        rmSync(path, { force: true });
      }
    }
    throw new Error(`could not lock ${dataDir}`);
  }

  /** The live process holding the data directory, if any. */
  static owner(dataDir: string): { pid: number; role: string } | null {
    let content: string;
    try {
      content = readFileSync(join(dataDir, "owner.pid"), "utf8");
    } catch {
      return null;
    }
    // The role may hold spaces ("keys command"): it is everything after the pid.
    const text = content.trim();
    const space = text.indexOf(" ");
    const pid = Number(space < 0 ? text : text.slice(0, space));
    const role = space < 0 ? "another process" : text.slice(space + 1);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
    try {
      process.kill(pid, 0);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM" ? { pid, role } : null;
    }
    return isZombie(pid) ? null : { pid, role };
  }

  release(): void {
    rmSync(this.path, { force: true });
  }
}

/**
 * A process killed whose parent has not collected it yet (a container whose first process
 * does not reap orphans keeps them for good) still answers signals, but holds nothing.
 * Where there is no /proc, a process that answers counts as alive.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}
