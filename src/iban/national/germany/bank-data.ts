/** What the bundled registry knows about each German bank beyond its name and BIC. */
export interface GermanBank {
  /** The Bundesbank check method of its account numbers, for example `63` or `C0`. */
  method: string;
  /**
   * The Bundesbank IBAN rule ("IBAN-Regel") for building IBANs from its account numbers: rule number
   * and version, for example `000503`; null where the source data has none for the bank.
   */
  ibanRule: string | null;
}

export interface GermanBankData {
  /**
   * By bank code (Bankleitzahl), as a number: a caller holding the IBAN's character codes looks a bank
   * up without building a string (see `germanBank` for a code given as text).
   */
  banks: ReadonlyMap<number, GermanBank>;
}

/** The bank with this 8-digit bank code, if the registry has it. */
export function germanBank(data: GermanBankData, bankCode: string): GermanBank | undefined {
  return isDigits(bankCode, 8) ? data.banks.get(Number(bankCode)) : undefined;
}

export const GERMAN_BANKS_HEADER = "bank_code\tcheck_method\tiban_rule";

/**
 * Parses registry/data/de-banks.tsv (`bank_code<TAB>check_method<TAB>iban_rule`, one header line,
 * sorted by bank code). Throws on a malformed row or rows out of order, so a bad build cannot start.
 */
export function parseGermanBanksTsv(tsv: string): GermanBankData {
  const lines = tsv.split("\n");
  if (lines[0] !== GERMAN_BANKS_HEADER) throw new Error("de-banks.tsv: unexpected header");
  const banks = new Map<number, GermanBank>();
  let previous = "";
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === "") continue;
    const fields = line.split("\t");
    const [code = "", method = "", rule = ""] = fields;
    if (
      fields.length !== 3 ||
      !isDigits(code, 8) ||
      !isMethodCode(method) ||
      !(rule === "" || isDigits(rule, 6)) ||
      code <= previous
    ) {
      throw new Error(`de-banks.tsv line ${i + 1}: malformed or out of order: ${JSON.stringify(line)}`);
    }
    banks.set(Number(code), { method, ibanRule: rule === "" ? null : rule });
    previous = code;
  }
  return { banks };
}

function isDigits(text: string, length: number): boolean {
  if (text.length !== length) return false;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** `00` to `E9`: a digit or A-E, then a digit. */
function isMethodCode(code: string): boolean {
  const first = code.charCodeAt(0);
  const second = code.charCodeAt(1);
  return (
    code.length === 2 &&
    ((first >= 48 && first <= 57) || (first >= 65 && first <= 69)) &&
    second >= 48 &&
    second <= 57
  );
}
