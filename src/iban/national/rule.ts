/**
 * What a country's national check says about one BBAN, and the shape every country's rule has, so that the
 * engine treats them all alike (as the VAT format rules are one `CountryFormat` each).
 */
import type { ApiErrorBody } from "../../kernel/errors.ts";

/** Whether the BBAN's national check digits hold; `not_applicable` where the rule defines none for it. */
export type NationalCheck = "passed" | "failed" | "not_applicable";

export interface NationalRule {
  /**
   * Judges the BBAN held as character codes (digits and upper-case letters, already matched against the
   * country's structure) at `codes[at ..]`. `bankCode` is the IBAN's bank code, for rules that look the
   * bank up. Allocation-free: it runs for every valid IBAN.
   */
  judge(codes: Uint8Array, at: number, bankCode: string | null): NationalCheck;
  /** The warning when `judge` says `failed` (see `nationalWarning`). */
  warning(bankCode: string | null): ApiErrorBody;
}

/**
 * The warning of a failed national check: `national_check_failed`, with the rule in plain words. Built once
 * per rule and frozen, since every failing result carries it as it is.
 */
export function nationalWarning(message: string): ApiErrorBody {
  return Object.freeze({ code: "national_check_failed", message });
}

/**
 * A rule whose check either holds or not, with the accounts it must never fail (published exceptions):
 * those are `not_applicable` when the check does not hold for them.
 */
export function checkRule(
  holds: (codes: Uint8Array, at: number) => boolean,
  failure: string,
  exempt: (codes: Uint8Array, at: number) => boolean = () => false,
): NationalRule {
  const warning = nationalWarning(failure);
  return {
    judge: (codes, at) => (holds(codes, at) ? "passed" : exempt(codes, at) ? "not_applicable" : "failed"),
    warning: () => warning,
  };
}

/** The value of the digit at `codes[index]`. */
export function digitAt(codes: Uint8Array, index: number): number {
  return (codes[index] as number) - 48;
}

/** Whether `codes[at ..]` starts with `prefix` (ASCII). */
export function startsWith(codes: Uint8Array, at: number, prefix: string): boolean {
  for (let i = 0; i < prefix.length; i++) if (codes[at + i] !== prefix.charCodeAt(i)) return false;
  return true;
}
