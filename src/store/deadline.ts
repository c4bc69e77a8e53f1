import { raceDeadline } from "../kernel/deadline.ts";
import { StoreError } from "./errors.ts";

/**
 * Settles as `work` does, or rejects with a `timeout` StoreError once `ms` have passed.
 * `work` itself is not cancelled; `onTimeout` lets the caller abandon what it can (a stuck
 * connection, a request).
 */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  what: string,
  onTimeout?: () => void,
): Promise<T> {
  return raceDeadline(work, ms, () => {
    onTimeout?.();
    throw new StoreError("timeout", `${what} took longer than ${ms} ms`);
  });
}
