import type { ApiErrorBody, ErrorCode } from "../kernel/errors.ts";
import { type BankTable, bankKeyOf, findBank } from "./bank-directory.ts";
import { mod97 } from "./mod97.ts";
import type { NationalRule } from "./national/rule.ts";
import { type NationalRules, nationalRules } from "./national/rules.ts";
import { ASCII_KIND, DIGIT, describeCharacter, IbanNormalizer, LETTER } from "./normalize.ts";
import type { IbanRegistry, Span } from "./registry.ts";
import type { IbanResult } from "./schema.ts";

export interface IbanEngine {
  /** Version of the bundled registry, for example `swift-r100+schwifty-23462330 (bank data 2026-07-23)`. */
  readonly registryVersion: string;
  /** Validates and parses one IBAN as a user typed it. Never throws. */
  validate(input: string): IbanResult;
}

/** A country's format compiled for the hot path; offsets are into the electronic IBAN. */
interface CompiledFormat {
  code: string;
  length: number;
  /** Accepted kind bits per IBAN position (check digits included). */
  classes: Uint8Array;
  bank: Span | null;
  branch: Span | null;
  account: Span | null;
  sepa: boolean;
  banks: BankTable | null;
  /** The country's national check of the BBAN, if it has one. */
  national: NationalRule | null;
  /** "IBAN for XX must be N characters, got M", by M. */
  lengthMessages: (string | undefined)[];
}

const CLASS_BITS: Record<string, number> = { n: DIGIT, a: LETTER, c: DIGIT | LETTER };
const CLASS_NAMES = ["", "a digit", "an upper-case letter", "a letter or digit"];
/** "00" to "99", so that check digits need no string building. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"));

/**
 * Compiles the registry once into per-country tables and returns the validator. Validation is pure and
 * synchronous: it reads the input's character codes into a reused buffer, checks country, length,
 * structure and checksum in that order, then the BBAN's national check (`national`: the bundled ones by
 * default), and only builds strings for the result.
 */
export function createIbanEngine(
  registry: IbanRegistry,
  national: NationalRules = nationalRules(registry.germany),
): IbanEngine {
  /** Indexed by (first letter × 26 + second letter). */
  const formats: (CompiledFormat | undefined)[] = new Array(26 * 26).fill(undefined);
  for (const [code, format] of registry.formats) {
    const classes = new Uint8Array(format.ibanLength);
    classes.fill(LETTER, 0, 2).fill(DIGIT, 2, 4);
    for (let i = 0; i < format.bbanClasses.length; i++) {
      classes[4 + i] = CLASS_BITS[format.bbanClasses[i] as string] as number;
    }
    const shift = (span: Span | null): Span | null => (span ? [span[0] + 4, span[1] + 4] : null);
    formats[(code.charCodeAt(0) - 65) * 26 + code.charCodeAt(1) - 65] = {
      code,
      length: format.ibanLength,
      classes,
      bank: shift(format.bank),
      branch: shift(format.branch),
      account: shift(format.account),
      sepa: format.sepa,
      banks: registry.banks.get(code) ?? null,
      national: national.get(code) ?? null,
      lengthMessages: new Array(MEMOIZED_LENGTHS).fill(undefined),
    };
  }
  const normalizer = new IbanNormalizer();
  /** Rejection messages repeat, so the common ones are built once: per unknown code, per wrong length. */
  const unknownCountryMessages: (string | undefined)[] = new Array(26 * 26).fill(undefined);

  function validate(input: string): IbanResult {
    normalizer.normalize(input);
    const { codes, start, length, badIndex } = normalizer;
    // The country is judged first, on what was read before any character that is not allowed.
    let format: CompiledFormat | undefined;
    const first = codes[start] as number;
    const second = codes[start + 1] as number;
    if (length >= 2 && ASCII_KIND[first] === LETTER && ASCII_KIND[second] === LETTER) {
      const index = (first - 65) * 26 + second - 65;
      format = formats[index];
      if (!format) {
        unknownCountryMessages[index] ??=
          `${String.fromCharCode(first, second)} is not a country or territory that uses IBANs`;
        return rejected(input, "invalid_country", unknownCountryMessages[index], null);
      }
    }
    if (badIndex >= 0) {
      const where = badIndex + 1;
      return rejected(
        input,
        "invalid_format",
        `character ${describeCharacter(input, badIndex)} at position ${where} is not allowed in an IBAN`,
        format ?? null,
      );
    }
    if (length === 0) return rejected(input, "invalid_country", "IBAN is empty", null);
    if (!format) {
      return rejected(input, "invalid_country", "IBAN must start with a two-letter country code", null);
    }
    if (length !== format.length) {
      return rejected(input, "invalid_length", lengthMessage(format, length), format);
    }
    const classes = format.classes;
    for (let i = 2; i < length; i++) {
      const c = codes[start + i] as number;
      const expected = classes[i] as number;
      if (((ASCII_KIND[c] as number) & expected) === 0) {
        const part = i < 4 ? " (check digits)" : "";
        return rejected(
          input,
          "invalid_format",
          `character '${String.fromCharCode(c)}' at position ${i + 1}${part} must be ${CLASS_NAMES[expected]}`,
          format,
        );
      }
    }
    const checkDigits = ((codes[start + 2] as number) - 48) * 10 + (codes[start + 3] as number) - 48;
    if (checkDigits < 2 || checkDigits > 98) {
      const message = `check digits ${TWO_DIGITS[checkDigits]} are never issued (ISO 13616 check digits run from 02 to 98)`;
      return parsed(input, format, checkDigits, { code: "invalid_checksum", message });
    }
    if (mod97(codes, start, length) !== 1) {
      const message = "IBAN checksum (ISO 7064 mod 97-10) does not match; a character is probably mistyped";
      return parsed(input, format, checkDigits, { code: "invalid_checksum", message });
    }
    return parsed(input, format, checkDigits, null);
  }

  /**
   * A result whose structure passed: valid, or failing only the checksum. A checksum failure keeps the
   * parsed parts (they help find the typo) but names no bank and judges no national check, since the bank
   * code may be the typo.
   */
  function parsed(
    input: string,
    format: CompiledFormat,
    checkDigits: number,
    error: ApiErrorBody | null,
  ): IbanResult {
    const iban = normalizer.verbatim ? input : normalizer.electronicFormat();
    const { codes, start } = normalizer;
    const bank = format.bank;
    const bankCode = bank ? iban.slice(bank[0], bank[1]) : null;
    const national = error === null ? format.national : null;
    const nationalCheck = national === null ? "not_applicable" : national.judge(codes, start + 4, bankCode);
    return {
      input,
      valid: error === null,
      iban,
      iban_formatted: normalizer.printFormat(input),
      country_code: format.code,
      check_digits: TWO_DIGITS[checkDigits] as string,
      bban: iban.slice(4),
      bank_code: bankCode,
      branch_code: format.branch ? iban.slice(format.branch[0], format.branch[1]) : null,
      account_number: format.account ? iban.slice(format.account[0], format.account[1]) : null,
      sepa: format.sepa,
      bank:
        error === null && bank !== null && format.banks !== null
          ? findBank(format.banks, bankKeyOf(codes, start + bank[0], start + bank[1]))
          : null,
      national_check: nationalCheck,
      source: "offline",
      cached: false,
      error,
      warning: nationalCheck === "failed" ? (national as NationalRule).warning(bankCode) : null,
    };
  }

  return { registryVersion: registry.version, validate };
}

const MEMOIZED_LENGTHS = 64;

function lengthMessage(format: CompiledFormat, length: number): string {
  const message = format.lengthMessages[length];
  if (message !== undefined) return message;
  const built = `IBAN for ${format.code} must be ${format.length} characters, got ${length}`;
  if (length < MEMOIZED_LENGTHS) format.lengthMessages[length] = built;
  return built;
}

/**
 * A result for input that is not an IBAN of a known country's structure: only what the country,
 * if known, tells (its code and SEPA membership).
 */
function rejected(
  input: string,
  code: ErrorCode,
  message: string,
  format: CompiledFormat | null,
): IbanResult {
  return {
    input,
    valid: false,
    iban: null,
    iban_formatted: null,
    country_code: format?.code ?? null,
    check_digits: null,
    bban: null,
    bank_code: null,
    branch_code: null,
    account_number: null,
    sepa: format?.sepa ?? null,
    bank: null,
    national_check: "not_applicable",
    source: "offline",
    cached: false,
    error: { code, message },
    warning: null,
  };
}
