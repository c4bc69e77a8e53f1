/**
 * Every country's national check, by country code: the table the engine compiles. Countries not listed
 * have none (AT, CH, DK, GB, IE, LT, LU, LV and most others), or none that still holds (NL's 11-test,
 * which new Dutch account numbers no longer follow).
 */
import { CIN_RULES } from "./cin.ts";
import type { GermanBankData } from "./germany/bank-data.ts";
import { germanRule } from "./germany/rule.ts";
import { LUHN_RULES } from "./luhn.ts";
import { MOD11_10_RULES } from "./mod11-10.ts";
import { MOD97_RULES } from "./mod97.ts";
import { RIB_RULES } from "./rib.ts";
import type { NationalRule } from "./rule.ts";
import { WEIGHTED_RULES } from "./weighted.ts";

export type NationalRules = ReadonlyMap<string, NationalRule>;

/** The national checks, Germany's with the bundled registry's check method per bank. */
export function nationalRules(germany: GermanBankData): NationalRules {
  return new Map(
    Object.entries({
      ...WEIGHTED_RULES,
      ...MOD97_RULES,
      ...RIB_RULES,
      ...LUHN_RULES,
      ...MOD11_10_RULES,
      ...CIN_RULES,
      DE: germanRule(germany),
    }),
  );
}
