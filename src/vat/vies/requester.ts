/** Our own VAT registration, sent so that VIES issues a consultation number. */
export type ViesRequester = { countryCode: string; vatNumber: string };

const REQUESTER_PATTERN = /^([A-Z]{2})([0-9A-Z+*.]{2,12})$/;

/**
 * Splits the configured requester VAT number (`DE123456789`) into the two SOAP fields. Spaces,
 * dots and dashes are ignored and `GR` becomes `EL`, as VIES expects. Throws on a value VIES
 * could never accept, so a misconfiguration stops the boot instead of degrading every call.
 */
export function parseRequesterVat(configured: string): ViesRequester {
  const compact = configured.replace(/[\s.-]/g, "").toUpperCase();
  const match = REQUESTER_PATTERN.exec(compact);
  if (match === null) {
    throw new Error(
      `Invalid requester VAT number "${configured}": expected a 2-letter prefix and 2-12 characters`,
    );
  }
  const [, prefix = "", vatNumber = ""] = match;
  return { countryCode: prefix === "GR" ? "EL" : prefix, vatNumber };
}
