import type { LogFields } from "./log.ts";

/**
 * What a log line may say about a failure, with nothing of the data it was working on. A
 * failed statement's error from Drizzle carries the statement's parameters in its message and
 * stack (every item of a batch: VAT numbers, IBANs, references), and the server's own detail
 * and context carry values of the row; so a database failure is told by its SQLSTATE, the
 * class that code belongs to and the schema objects involved — never a message, a detail or a
 * parameter. Any other error is told by the start of its message, after its name when it is
 * not a plain Error.
 */
export function describeFailure(error: unknown): LogFields {
  const failure = driverError(error);
  if (isServerError(failure)) {
    const { code, table, constraint, column } = serverObjects(failure);
    return {
      error: `the database refused a statement: ${SQLSTATE_CLASSES[code.slice(0, 2)] ?? "error"}`,
      code,
      ...(table && { table }),
      ...(constraint && { constraint }),
      ...(column && { column }),
    };
  }
  if (failure instanceof Error) {
    const code = (failure as { code?: unknown }).code;
    const message = failure.message.slice(0, MESSAGE_LENGTH);
    return {
      error: failure.name === "Error" ? message : `${failure.name}: ${message}`,
      ...(typeof code === "string" && { code }),
    };
  }
  return { error: String(failure).slice(0, MESSAGE_LENGTH) };
}

/** Where an unexpected error was thrown: the frames of its stack, without its message. */
export function stackFrames(error: unknown): string | undefined {
  const stack = driverError(error) instanceof Error ? (driverError(error) as Error).stack : undefined;
  return stack
    ?.split("\n")
    .filter((line) => /^\s+at /.test(line))
    .join("\n");
}

const MESSAGE_LENGTH = 200;

/** Drizzle wraps the driver's error in one of its own, whose message lists the parameters. */
function driverError(error: unknown): unknown {
  const wrapped = error as { query?: unknown; params?: unknown; cause?: unknown } | null;
  if (wrapped && typeof wrapped === "object" && "params" in wrapped && wrapped.cause !== undefined)
    return wrapped.cause;
  return error;
}

type ServerError = Error & { code: string; severity: string };

/** An error the server sent (postgres.js's PostgresError, PGlite's DatabaseError): a SQLSTATE. */
function isServerError(error: unknown): error is ServerError {
  const fields = error as { code?: unknown; severity?: unknown } | null;
  return (
    error instanceof Error &&
    typeof fields?.severity === "string" &&
    typeof fields.code === "string" &&
    /^[0-9A-Z]{5}$/.test(fields.code)
  );
}

/** The schema objects a server error names, under either driver's field names. */
function serverObjects(error: ServerError): {
  code: string;
  table?: string;
  constraint?: string;
  column?: string;
} {
  const fields = error as unknown as Record<string, unknown>;
  const name = (...keys: string[]) =>
    keys
      .map((key) => fields[key])
      .find((value): value is string => typeof value === "string" && value !== "");
  return {
    code: error.code,
    table: name("table_name", "table"),
    constraint: name("constraint_name", "constraint"),
    column: name("column_name", "column"),
  };
}

/** The classes of SQLSTATE codes (Postgres's documentation, appendix A), by their first two characters. */
const SQLSTATE_CLASSES: Record<string, string> = {
  "08": "connection exception",
  "0A": "feature not supported",
  "21": "cardinality violation",
  "22": "data exception",
  "23": "integrity constraint violation",
  "25": "invalid transaction state",
  "28": "invalid authorization",
  "3D": "invalid catalog name",
  "3F": "invalid schema name",
  "40": "transaction rollback",
  "42": "syntax error or access rule violation",
  "53": "insufficient resources",
  "54": "program limit exceeded",
  "55": "object not in prerequisite state",
  "57": "operator intervention",
  "58": "system error",
  P0: "PL/pgSQL error",
  XX: "internal error",
};
