import type { VatResult } from "../../src/vat/schema.ts";

/**
 * A whole VatResult as the service gives it fresh from VIES, of the VIES fake's registered
 * Dutch number (GitHub B.V.) unless `changes` say otherwise: tests compare whole results, and
 * a field VatResult gains is added here once.
 */
export function freshVatResult(changes: Partial<VatResult> & Pick<VatResult, "checked_at">): VatResult {
  return {
    input: "NL854265259B01",
    valid: true,
    vat_number: "NL854265259B01",
    country_code: "NL",
    country_name: "Netherlands",
    name: "GITHUB B.V.",
    address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM",
    source: "vies",
    cached: false,
    stale: false,
    consultation_number: null,
    error: null,
    warning: null,
    match: null,
    ...changes,
  };
}
