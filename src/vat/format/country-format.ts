/**
 * The local format rule of one VAT country, python-stdnum style: every country module
 * exports one of these and the dispatcher treats them all alike.
 */
export type CountryFormat = {
  /** ISO 3166-1 alpha-2 code reported as `country_code` (GR for Greece, GB for Northern Ireland). */
  readonly countryCode: string;
  /** English short name reported as `country_name`. */
  readonly countryName: string;
  /** Completes the rejection message "<prefix> VAT numbers are …". */
  readonly structure: string;
  /**
   * A designation people write after the number (CH `MWST`, NO `MVA`), dropped before the
   * pattern: it is not part of the number the register knows.
   */
  readonly suffix?: RegExp;
  /** The strict structure of the normalized number after the prefix, anchored. */
  readonly pattern: RegExp;
  /**
   * Puts back leading zeros that people drop when they store numbers as integers (BE, EL, NL).
   * Runs before `pattern`; the padded number is what VIES is sent.
   */
  readonly restoreLeadingZeros?: (number: string) => string;
  /**
   * Whether the check digits are right, for a number that matched `pattern`. Forms without a
   * check digit the service trusts answer true and are left to the upstream to decide.
   */
  readonly hasValidCheckDigits: (number: string) => boolean;
};
