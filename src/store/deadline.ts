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
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout?.();
      reject(new StoreError("timeout", `${what} took longer than ${ms} ms`));
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
