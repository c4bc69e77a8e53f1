/**
 * Builds an IBAN from a domestic account number: the country's builder makes the BBAN (`countries/`),
 * the check digits are computed, and the IBAN is then validated like any other, its national check
 * included. Pure: the engine and the registry are passed in. The IBAN is given back as its string; the
 * route validates and bills it as /validate does an IBAN.
 */
import type { IbanEngine } from "../engine.ts";
import type { IbanRegistry } from "../registry.ts";
import type { IbanResult } from "../schema.ts";
import { BIC_BANK_BUILDERS } from "./countries/bic-bank.ts";
import { CZECH_SLOVAK_BUILDERS } from "./countries/cz-sk.ts";
import { buildGerman } from "./countries/de.ts";
import { buildEstonian } from "./countries/ee.ts";
import { buildFinnish } from "./countries/fi.ts";
import { buildHungarian } from "./countries/hu.ts";
import { buildIcelandic } from "./countries/is.ts";
import { ITALIAN_BUILDERS } from "./countries/it-sm.ts";
import { buildPolish } from "./countries/pl.ts";
import { PLAIN_BUILDERS } from "./countries/plain.ts";
import type { CountryBuilder } from "./country-builder.ts";
import { ibanCheckDigits } from "./iban-check-digits.ts";
import type { DomesticParts } from "./parts.ts";

/** Every country whose conversion is public and mechanical, by country code. */
const BUILDERS: ReadonlyMap<string, CountryBuilder> = new Map(
  Object.entries({
    ...PLAIN_BUILDERS,
    ...BIC_BANK_BUILDERS,
    ...CZECH_SLOVAK_BUILDERS,
    ...ITALIAN_BUILDERS,
    DE: buildGerman,
    EE: buildEstonian,
    FI: buildFinnish,
    HU: buildHungarian,
    IS: buildIcelandic,
    PL: buildPolish,
  }).sort(([a], [b]) => a.localeCompare(b)),
);

/** The countries IBANs are built for, in alphabetical order. */
export const BUILD_COUNTRIES: readonly string[] = [...BUILDERS.keys()];

export interface BuildRequest extends DomesticParts {
  country_code?: string;
}

export type BuildOutcome =
  | { ok: true; iban: IbanResult }
  | { ok: false; code: "invalid_request" | "invalid_format" | "invalid_country"; message: string };

const UNSUPPORTED = `IBANs are built for ${BUILD_COUNTRIES.join(", ")}: the others' conversion rules are not public or not mechanical`;

export interface IbanBuilder {
  /** The validated IBAN of a domestic account number, or why none can be built. */
  build(request: BuildRequest): BuildOutcome;
}

export function createIbanBuilder(engine: IbanEngine, registry: IbanRegistry): IbanBuilder {
  return {
    build(request) {
      const country = (request.country_code ?? "").trim().toUpperCase();
      if (country === "") return { ok: false, code: "invalid_request", message: "send `country_code`" };
      const builder = BUILDERS.get(country);
      const format = registry.formats.get(country);
      if (!builder || !format) {
        return {
          ok: false,
          code: "invalid_country",
          message: `${JSON.stringify(request.country_code)}: ${UNSUPPORTED}`,
        };
      }
      const built = builder(request, { country, format, registry });
      if ("refusal" in built) return { ok: false, ...built.refusal };
      const result = engine.validate(`${country}${ibanCheckDigits(country, built.bban)}${built.bban}`);
      if (result.valid !== true) {
        // The builders check every part, so this would be a builder making what the registry refuses.
        return {
          ok: false,
          code: "invalid_format",
          message: `no valid IBAN comes of these parts: ${result.error?.message}`,
        };
      }
      if (result.national_check === "failed") {
        return {
          ok: false,
          code: "invalid_format",
          message: `the account number fails its national check: ${result.warning?.message}`,
        };
      }
      return { ok: true, iban: result };
    },
  };
}
