import { dlopen, FFIType, read } from "bun:ffi";
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";

const LOCK_EX = 2;
const LOCK_NB = 4;
const EWOULDBLOCK = process.platform === "darwin" ? 35 : 11;

/** The C library's names differ by platform and libc (glibc, musl in Alpine images, macOS). */
const LIBC_CANDIDATES =
  process.platform === "darwin"
    ? ["libc.dylib"]
    : ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"];

type Libc = { flock(fd: number, operation: number): number; errno(): number };

let libc: Libc | null = null;

function loadLibc(): Libc {
  if (libc) return libc;
  const errnoSymbol = process.platform === "darwin" ? "__error" : "__errno_location";
  for (const name of LIBC_CANDIDATES) {
    try {
      const { symbols } = dlopen(name, {
        flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        [errnoSymbol]: { args: [], returns: FFIType.ptr },
      });
      const errnoAt = symbols[errnoSymbol] as () => number | null;
      libc = {
        flock: (fd, operation) => symbols.flock(fd, operation) as number,
        errno: () => {
          const at = errnoAt();
          return at ? read.i32(at as never, 0) : 0;
        },
      };
      return libc;
    } catch {
      // Not this platform's name for it: try the next.
    }
  }
  throw new Error(`no C library found to lock the data directory (tried ${LIBC_CANDIDATES.join(", ")})`);
}

/**
 * Embedded Postgres must be opened by one process at a time. The owner holds an exclusive
 * `flock(2)` on `DATA_DIR/owner.pid` for as long as it runs: the kernel grants it to one
 * process only, and releases it when that process ends, however it ends (`kill -9`
 * included) — so there is no stale owner to recognise or take over. The file also names the
 * owner (pid and role) for the message of the processes it refuses. It is never deleted: a
 * process that opened the old file could otherwise lock it while another locks a new one.
 */
export class DataDirLock {
  private constructor(private readonly fd: number) {}

  /** Takes the directory for this process; throws a message naming the owner when another holds it. */
  static acquire(dataDir: string, role: string): DataDirLock {
    const { flock, errno } = loadLibc();
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, "owner.pid");
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
      const code = errno();
      closeSync(fd);
      if (code !== EWOULDBLOCK) throw new Error(`could not lock ${path} (errno ${code})`);
      throw new Error(`${dataDir} is in use by ${describeOwner(path)}; stop it or use DATABASE_URL`);
    }
    ftruncateSync(fd, 0);
    writeSync(fd, `${process.pid} ${role}\n`, 0);
    return new DataDirLock(fd);
  }

  /** Clears the owner's name and gives the directory up (closing the file releases the lock). */
  release(): void {
    ftruncateSync(this.fd, 0);
    closeSync(this.fd);
  }
}

/**
 * The owner as its file names it. The owner writes its name just after taking the lock, so a
 * process refused in between may read nothing yet, or the name of an owner that is gone: it
 * looks again for a moment.
 */
function describeOwner(path: string): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const text = readFileSync(path, "utf8").trim();
    const space = text.indexOf(" ");
    const pid = Number(space < 0 ? text : text.slice(0, space));
    // The role may hold spaces ("keys command"): it is everything after the pid.
    const role = space < 0 ? "another process" : text.slice(space + 1);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return `${role} (pid ${pid})`;
    Bun.sleepSync(5);
  }
  return "another process";
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
