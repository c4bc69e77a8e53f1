import { authorityOf } from "../authorities.ts";
import { checkVatFormat } from "../format/check-vat-format.ts";

/** Our own VAT registration, sent so that VIES issues a consultation number. */
export type ViesRequester = { countryCode: string; vatNumber: string };

/**
 * Splits the configured requester VAT number (`DE…`) into the two SOAP fields, normalized as
 * any VAT input is (`GR` becomes `EL`). Throws on a value VIES could never accept — a number
 * failing its country's format or check digits, or one outside VIES (GB, CH, NO) — so that a
 * misconfiguration stops the boot instead of costing a refused call on every lookup.
 */
export function parseRequesterVat(configured: string): ViesRequester {
  const format = checkVatFormat(configured);
  if (!format.ok) throw new Error(`the requester VAT number is not valid: ${format.message}`);
  if (authorityOf(format.prefix) !== "vies") {
    throw new Error(
      `the requester VAT number must be an EU (or XI) number: VIES does not check ${format.prefix} numbers`,
    );
  }
  return { countryCode: format.prefix, vatNumber: format.number };
}
