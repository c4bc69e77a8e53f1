import { StoreError } from "./errors.ts";

/** A string-or-nil reply (`GET`) as the store interface returns it. */
export function stringReply(reply: unknown, command: string): string | null {
  if (reply === null || typeof reply === "string") return reply;
  throw new StoreError("bad_reply", `${command} replied with ${typeof reply}, expected a string or nil`);
}

/**
 * An integer reply (`INCRBY`, or a script returning one). RESP3 and Upstash's JSON both give
 * a number here; anything else, or an integer beyond what a double holds exactly, is refused.
 */
export function integerReply(reply: unknown, command: string): number {
  if (typeof reply === "number" && Number.isSafeInteger(reply)) return reply;
  throw new StoreError("bad_reply", `${command} replied with ${String(reply)}, expected a safe integer`);
}
