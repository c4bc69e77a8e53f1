import { expect, test } from "bun:test";
import { isPostgresDriverSocketBug } from "../../src/kernel/driver-guard.ts";

function errorFrom(message: string, stack: string): Error {
  const error = new TypeError(message);
  error.stack = `TypeError: ${message}\n    at ${stack}`;
  return error;
}

test("only the driver's socket.write TypeError is recognised", () => {
  const driver = "nextWrite (/app/node_modules/postgres/src/connection.js:245:9)";
  expect(
    isPostgresDriverSocketBug(errorFrom("null is not an object (evaluating 'socket.write')", driver)),
  ).toBe(true);
  expect(
    isPostgresDriverSocketBug(errorFrom("Cannot read properties of null (reading 'write')", driver)),
  ).toBe(true);
  expect(isPostgresDriverSocketBug(errorFrom("x is not a function", driver))).toBe(false);
  expect(
    isPostgresDriverSocketBug(
      errorFrom("null is not an object (evaluating 'socket.write')", "run (/app/src/x.ts:1:1)"),
    ),
  ).toBe(false);
  expect(isPostgresDriverSocketBug(new Error("null is not an object (evaluating 'socket.write')"))).toBe(
    false,
  );
});
