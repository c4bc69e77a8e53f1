import type { VatPrefix } from "./format/check-vat-format.ts";

/**
 * The authorities that answer for VAT numbers, as `VatResult.source` names them: VIES for the
 * EU member states and Northern Ireland, and a national service each for the UK, Switzerland
 * (the UID register) and Norway (the Register of Legal Entities, Enhetsregisteret).
 */
export const AUTHORITY_SOURCES = ["vies", "uk_authority", "ch_uid", "no_brreg"] as const;
export type AuthoritySource = (typeof AUTHORITY_SOURCES)[number];

export type Authority = {
  /** How an answer names it: "VIES is unreachable…", "the Swiss UID register refused…". */
  name: string;
  /**
   * The fault when our deadline runs out: behind VIES a member state is slow; the national
   * services have nobody behind them, so they are themselves unavailable.
   */
  timeoutCode: "member_state_unavailable" | "service_unavailable";
  /** Why its numbers cannot be checked while it is off on this deployment. */
  disabledMessage: string;
};

export const AUTHORITIES: Record<AuthoritySource, Authority> = {
  vies: {
    name: "VIES",
    timeoutCode: "member_state_unavailable",
    disabledMessage: "VIES is not configured on this deployment",
  },
  uk_authority: {
    name: "the UK VAT service",
    timeoutCode: "service_unavailable",
    disabledMessage:
      "UK VAT numbers (prefix GB) cannot be checked: the UK VAT service is not enabled on this deployment",
  },
  ch_uid: {
    name: "the Swiss UID register",
    timeoutCode: "service_unavailable",
    disabledMessage:
      "Swiss VAT numbers (prefix CHE) cannot be checked: the Swiss UID register is not enabled on this deployment",
  },
  no_brreg: {
    name: "the Norwegian Register of Legal Entities",
    timeoutCode: "service_unavailable",
    disabledMessage:
      "Norwegian VAT numbers (prefix NO) cannot be checked: the Norwegian Register of Legal Entities is not enabled on this deployment",
  },
};

const NATIONAL: Partial<Record<VatPrefix, AuthoritySource>> = {
  GB: "uk_authority",
  CH: "ch_uid",
  NO: "no_brreg",
};

/** The authority that answers for numbers with this prefix (XI is VIES's). */
export function authorityOf(prefix: VatPrefix): AuthoritySource {
  return NATIONAL[prefix] ?? "vies";
}

/** Which authorities this deployment asks: VIES always; the national services as configured. */
export type EnabledAuthorities = Readonly<Record<AuthoritySource, boolean>>;

/** The authorities the configuration switches on (the UK's also needs its credentials, checked at start). */
export function enabledAuthorities(config: {
  UK_VAT_ENABLED: boolean;
  CH_VAT_ENABLED: boolean;
  NO_VAT_ENABLED: boolean;
}): EnabledAuthorities {
  return {
    vies: true,
    uk_authority: config.UK_VAT_ENABLED,
    ch_uid: config.CH_VAT_ENABLED,
    no_brreg: config.NO_VAT_ENABLED,
  };
}
