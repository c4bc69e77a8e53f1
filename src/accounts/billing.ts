import type { ApiErrorBody } from "../kernel/errors.ts";

/** What billing needs to know about one component's answer. */
export type ComponentAnswer = { valid: boolean | null; error: ApiErrorBody | null };

/**
 * An IBAN is billable when its checksum ran: the country, length and structure passed,
 * whatever the checksum said. Rejections before that are free.
 */
export function ibanIsBillable(answer: ComponentAnswer): boolean {
  return answer.valid === true || answer.error?.code === "invalid_checksum";
}

/**
 * Whether a component gave a definitive answer, which makes the whole request a 200: a
 * verdict (`valid` true or false) that is not a local rejection of the input.
 */
export function isAnswered(answer: ComponentAnswer): boolean {
  if (answer.valid === null) return false;
  const code = answer.error?.code;
  return code === undefined || code === "invalid_checksum";
}

/** Whether a key's month has a unit left for one more request: billed and held units below the quota. */
export function hasRoom(counts: { used: number; reserved: number }, quota: number | null): boolean {
  return quota === null || counts.used + counts.reserved < quota;
}
