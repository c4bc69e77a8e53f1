import { writeSync } from "node:fs";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFields = Record<string, unknown>;

/** Structured logging: one JSON object per line, `event` naming what happened. */
export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Where lines go: `write` takes one line; `flush`, when there is one, writes out what is held. */
export type LineSink = ((line: string) => void) & { flush?: () => void };

/**
 * A logger writing JSON lines at or above `level`. `sink` defaults to stdout, a turn of the
 * event loop at a time (`stdoutLines`); tests pass their own to read what was logged. Warnings
 * and errors are written out at once: they are rare, and may be the last words of a process.
 */
export function createLogger(level: LogLevel, sink: LineSink = stdoutLines()): Logger {
  const time = clockText();
  const emit = (at: Exclude<LogLevel, "silent">) => {
    if (RANK[at] < RANK[level]) return () => {};
    const urgent = RANK[at] >= RANK.warn;
    const head = `,"level":"${at}","event":`;
    return (event: string, fields?: LogFields) => {
      // The fields are serialized as they are and spliced in after the fixed ones, rather than
      // copied into a new object first; a field named like a fixed one comes second and wins.
      const rest = fields === undefined ? "}" : JSON.stringify(fields);
      const tail = rest.length > 2 ? `,${rest.slice(1)}` : "}";
      sink(`{"time":"${time()}"${head}${JSON.stringify(event)}${tail}`);
      if (urgent) sink.flush?.();
    };
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/** The current time as ISO 8601, built once per millisecond however many lines share it. */
function clockText(): () => string {
  let at = Number.NaN;
  let text = "";
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      text = new Date(now).toISOString();
    }
    return text;
  };
}

export const silentLogger: Logger = createLogger("silent", () => {});

/**
 * Lines for stdout, held until the end of the current turn of the event loop and written with
 * one blocking system call: a request's log line costs a string append instead of a write of
 * its own, and a reader that falls behind slows the service down rather than losing lines
 * (an asynchronous stream would queue them in memory, and drop what it held at exit). What is
 * held is written when the process exits; a kill -9 loses at most the lines of one turn.
 */
export function stdoutLines(): LineSink {
  let held: string[] = [];
  let scheduled = false;
  let failing = false;
  const flush = () => {
    scheduled = false;
    if (held.length === 0) return;
    const text = `${held.join("\n")}\n`;
    held = [];
    const bytes = Buffer.from(text);
    for (let written = 0; written < bytes.length; ) {
      try {
        written += writeSync(1, bytes, written);
      } catch (error) {
        // A pipe whose reader is behind, opened non-blocking: wait for it rather than drop lines.
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
          Bun.sleepSync(1);
          continue;
        }
        // The reader is gone (EPIPE) or the output unusable: these lines cannot be written
        // anywhere, and that is no reason to stop answering requests. Said once, on stderr.
        if (!failing) warnOnStderr(`log lines cannot be written to stdout: ${String(error)}`);
        failing = true;
        return;
      }
    }
    failing = false;
  };
  process.on("exit", flush);
  return Object.assign(
    (line: string) => {
      held.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    { flush },
  );
}

function warnOnStderr(message: string): void {
  try {
    writeSync(2, `${message}\n`);
  } catch {
    // stderr is gone too: there is nobody left to tell.
  }
}
