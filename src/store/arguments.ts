// Checked before any store is touched, so a bad argument fails the same way on every store
// instead of as three different server errors (or, in memory, not at all).

/** Rejects anything but whole seconds > 0, the only expiry Redis `EX` accepts. */
export function checkTtlSeconds(ttlSeconds: number): void {
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new RangeError(`ttlSeconds must be a whole number of seconds > 0, got ${ttlSeconds}`);
  }
}

/** Rejects anything but a safe integer, the only increment `INCRBY` accepts. */
export function checkIncrement(by: number): void {
  if (!Number.isSafeInteger(by)) throw new RangeError(`by must be a safe integer, got ${by}`);
}
