import { at } from "./countries/at.ts";
import { be } from "./countries/be.ts";
import { bg } from "./countries/bg.ts";
import { ch } from "./countries/ch.ts";
import { cy } from "./countries/cy.ts";
import { cz } from "./countries/cz.ts";
import { de } from "./countries/de.ts";
import { dk } from "./countries/dk.ts";
import { ee } from "./countries/ee.ts";
import { el } from "./countries/el.ts";
import { es } from "./countries/es.ts";
import { fi } from "./countries/fi.ts";
import { fr } from "./countries/fr.ts";
import { gb, xi } from "./countries/gb.ts";
import { hr } from "./countries/hr.ts";
import { hu } from "./countries/hu.ts";
import { ie } from "./countries/ie.ts";
import { it } from "./countries/it.ts";
import { lt } from "./countries/lt.ts";
import { lu } from "./countries/lu.ts";
import { lv } from "./countries/lv.ts";
import { mt } from "./countries/mt.ts";
import { nl } from "./countries/nl.ts";
import { no } from "./countries/no.ts";
import { pl } from "./countries/pl.ts";
import { pt } from "./countries/pt.ts";
import { ro } from "./countries/ro.ts";
import { se } from "./countries/se.ts";
import { si } from "./countries/si.ts";
import { sk } from "./countries/sk.ts";
import type { CountryFormat } from "./country-format.ts";

export type VatFormatOk = {
  ok: true;
  /** The prefix the upstream is asked with: EL for GR input, XI, GB. */
  prefix: VatPrefix;
  /** ISO 3166-1 alpha-2: GR for EL, GB for XI. */
  countryCode: string;
  countryName: string;
  /** Normalized number without the prefix. */
  number: string;
  /** `prefix + number`, e.g. EL094259216. */
  vatNumber: string;
};

export type VatFormatRejected = {
  ok: false;
  code: "invalid_format" | "invalid_country";
  /** Clear English for API users. */
  message: string;
  /** Null when the prefix itself was rejected (`invalid_country`). */
  prefix: VatPrefix | null;
  countryCode: string | null;
  countryName: string | null;
};

export type VatFormatResult = VatFormatOk | VatFormatRejected;

/** Country rules by prefix: the spec's, in its order (the VIES prefixes, then GB), then CH and NO. */
const FORMATS = {
  AT: at,
  BE: be,
  BG: bg,
  CY: cy,
  CZ: cz,
  DE: de,
  DK: dk,
  EE: ee,
  EL: el,
  ES: es,
  FI: fi,
  FR: fr,
  HR: hr,
  HU: hu,
  IE: ie,
  IT: it,
  LT: lt,
  LU: lu,
  LV: lv,
  MT: mt,
  NL: nl,
  PL: pl,
  PT: pt,
  RO: ro,
  SE: se,
  SI: si,
  SK: sk,
  XI: xi,
  GB: gb,
  CH: ch,
  NO: no,
} as const satisfies Record<string, CountryFormat>;

export type VatPrefix = keyof typeof FORMATS;

/** The VAT prefixes the service covers. `GR` is also accepted, as an alias of `EL`. */
export const VAT_PREFIXES = Object.keys(FORMATS) as VatPrefix[];

type Country = { prefix: VatPrefix; format: CountryFormat };

const BY_PREFIX = new Map<string, Country>([
  ...VAT_PREFIXES.map((prefix): [string, Country] => [prefix, { prefix, format: FORMATS[prefix] }]),
  ["GR", { prefix: "EL", format: el }],
]);

const PREFIX_LIST = `${VAT_PREFIXES.join(", ")} (GR is accepted for Greece)`;

/**
 * Characters people put between groups of a VAT number: any whitespace (NBSP included), dots,
 * dashes (Unicode ones too), invisible formatting characters, and the `/ , : ( )` that written
 * numbers carry (`DK: 21599336`, `BE (0)468.561.072`, `CZ 640229/4448`). None can be part of a
 * number, so removing them never turns a wrong number into a right one.
 */
const SEPARATORS = /[\s.\-\u00AD\u2010-\u2015\u2212\u200B-\u200D\u2060/,:()]/g;
const LETTER_PREFIX = /^[A-Za-z]{2}/;
/** Upper-casing is left until this passes: Unicode case mapping turns `ı` into `I` and `ß` into `SS`. */
const NUMBER_CHARACTERS = /^[A-Za-z0-9+*]*$/;

function rejected(code: VatFormatRejected["code"], message: string, country?: Country): VatFormatRejected {
  return {
    ok: false,
    code,
    message,
    prefix: country?.prefix ?? null,
    countryCode: country?.format.countryCode ?? null,
    countryName: country?.format.countryName ?? null,
  };
}

function missingPrefixMessage(compact: string): string {
  return compact === ""
    ? `VAT number is empty; it must start with a 2-letter country prefix, one of ${PREFIX_LIST}`
    : `VAT number must start with a 2-letter country prefix (letters A–Z), one of ${PREFIX_LIST}`;
}

function structureMessage(given: string, country: Country, number: string): string {
  const repeated = BY_PREFIX.get(number.slice(0, 2));
  if (repeated !== undefined && repeated.prefix === country.prefix) {
    return `the country prefix appears twice; send '${given}' once, followed by the number`;
  }
  return `${given} VAT numbers are ${country.format.structure}`;
}

/**
 * The local format check run before any upstream call. Normalizes the input (separators
 * removed, upper-cased, a national suffix such as MWST or MVA dropped, dropped leading zeros
 * restored for BE, EL and NL), resolves the
 * prefix (`GR` → `EL`, `XI` and `GB` with UK rules) and checks the country's structure and
 * trusted check digits. Pure; never throws.
 */
export function checkVatFormat(input: string): VatFormatResult {
  const compact = input.replace(SEPARATORS, "");
  if (!LETTER_PREFIX.test(compact)) return rejected("invalid_country", missingPrefixMessage(compact));
  const given = compact.slice(0, 2).toUpperCase();
  const country = BY_PREFIX.get(given);
  if (country === undefined) {
    return rejected("invalid_country", `unknown VAT prefix '${given}'; expected one of ${PREFIX_LIST}`);
  }
  const raw = compact.slice(2);
  if (!NUMBER_CHARACTERS.test(raw)) {
    return rejected(
      "invalid_format",
      `${given} VAT numbers contain only the letters A–Z and digits`,
      country,
    );
  }
  const { format } = country;
  const upper = format.suffix ? raw.toUpperCase().replace(format.suffix, "") : raw.toUpperCase();
  const number = format.restoreLeadingZeros?.(upper) ?? upper;
  if (!format.pattern.test(number)) {
    return rejected("invalid_format", structureMessage(given, country, upper), country);
  }
  if (!format.hasValidCheckDigits(number)) {
    return rejected("invalid_format", `the check digit of this ${given} VAT number does not match`, country);
  }
  return {
    ok: true,
    prefix: country.prefix,
    countryCode: format.countryCode,
    countryName: format.countryName,
    number,
    vatNumber: country.prefix + number,
  };
}
