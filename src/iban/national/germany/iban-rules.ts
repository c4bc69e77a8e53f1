/**
 * German BBANs from a bank code and a domestic account number. The Bundesbank's IBAN rules
 * ("IBAN-Regeln", one per bank in field 14 of the extended BLZ file) say how: most banks take the account
 * number zero-padded to 10 digits; some replace the bank code, map special account numbers (donation
 * accounts and the like) to real ones, pad short numbers with a sub-account, or build no IBAN at all for
 * some accounts or for the whole bank. The rule logic is a port of gocardless/ibandit's
 * `GermanDetailsConverter` (MIT, commit 37bc62845bd6), for the rules the bundled banks use; the account
 * is then checked with the Bundesbank check method of the bank it ends up at.
 */
import { type GermanBank, type GermanBankData, germanBank } from "./bank-data.ts";
import {
  HYPO_BANK_CODES,
  RULE_0004,
  RULE_0005,
  RULE_0005_EXCLUDING_BANKS,
  RULE_0006,
  RULE_0007,
  RULE_0010,
  RULE_0010_BANK_CODES,
  RULE_0011,
  RULE_0015,
  RULE_0016,
  RULE_0017,
  RULE_0018,
  RULE_0022,
  RULE_0023,
  RULE_0024,
  RULE_0033,
  RULE_0034,
  RULE_0035,
  RULE_0044,
  RULE_0051,
  RULE_0053,
} from "./iban-rule-tables.ts";
import { checkGermanAccount } from "./methods.ts";

export type GermanBbanResult =
  | { ok: true; bankCode: string; account: string }
  | { ok: false; reason: string };

/** An account number as given (1 to 10 digits), and the forms the rules read. */
interface Account {
  given: string;
  /** Zero-padded to 10 digits. */
  padded: string;
  /** Without leading zeros. */
  unpadded: string;
  value: number;
}

/** Where a rule sends the account: a bank code and an account number (padded later), or a refusal. */
type Conversion = { bankCode: string; account: string } | { refusal: string };
type Rule = (bankCode: string, account: Account, bank: GermanBank) => Conversion;

const noIbanForBank = (bankCode: string): Conversion => ({
  refusal: `bank ${bankCode} does not take part in payments via IBAN`,
});
const noIbanForAccount = (bankCode: string, account: Account): Conversion => ({
  refusal: `account ${account.given} of bank ${bankCode} does not take part in payments via IBAN`,
});

const standard: Rule = (bankCode, account) => ({ bankCode, account: account.given });
const toBank =
  (replacement: string): Rule =>
  (_, account) => ({ bankCode: replacement, account: account.given });
/** Special account numbers replaced by real ones, keyed by the 10-digit account. */
const specialAccounts =
  (table: ReadonlyMap<string, string>): Rule =>
  (bankCode, account) => ({ bankCode, account: table.get(account.padded) ?? account.given });
const between = (value: number, low: number, high: number) => value >= low && value <= high;

/**
 * Rule 0005 (Commerzbank): special accounts per bank; 6- and 7-digit numbers of banks with method 13,
 * and 5- to 8-digit numbers of banks with method 76 that do not already hold their sub-account, get
 * the sub-account "00" appended; some banks' accounts 998000000 to 999499999 get no IBAN.
 */
const rule0005: Rule = (bankCode, account, bank) => {
  const converted =
    RULE_0005.get(`${bankCode}_${account.padded}`) ?? withSubAccount(account, bank.method) ?? account.given;
  if (RULE_0005_EXCLUDING_BANKS.has(bankCode) && between(Number(converted), 998000000, 999499999)) {
    return noIbanForAccount(bankCode, account);
  }
  return { bankCode, account: converted };
};

function withSubAccount(account: Account, method: string): string | undefined {
  const length = account.unpadded.length;
  if (method === "13" && (length === 6 || length === 7)) return `${account.unpadded}00`;
  if (method === "76" && (length === 5 || length === 6)) return `${account.unpadded}00`;
  if (method === "76" && (length === 7 || length === 8) && !holdsSubAccount76(account.padded)) {
    return `${account.unpadded}00`;
  }
  return undefined;
}

/**
 * Whether a 10-digit number already reads as method 76's `ASSSSSSPUU` (account type, 5- to 7-digit
 * main number whose last digit is the check digit). As in ibandit, remainder 10 counts as a match too.
 */
function holdsSubAccount76(padded: string): boolean {
  const type = padded.charCodeAt(0) - 48;
  if (type === 1 || type === 2 || type === 3 || type === 5) return false;
  if (Number(padded.slice(1, 8)) < 10_000) return false;
  let sum = 0;
  for (let position = 2; position <= 7; position++)
    sum += (padded.charCodeAt(position - 1) - 48) * (9 - position);
  const remainder = sum % 11;
  return remainder === 10 || remainder === padded.charCodeAt(7) - 48;
}

/**
 * Rule 0020 (Deutsche Bank): 5- and 6-digit numbers get the sub-account "00"; 7-digit numbers too if
 * that makes them pass Deutsche Bank's method 63 (check digit in position 8); 8- and 9-digit numbers
 * stay; other lengths get no IBAN. Account 9999 of bank 50070010 is 92777202.
 */
const rule0020: Rule = (bankCode, account) => {
  const digits = account.unpadded;
  if (bankCode === "50070010" && digits === "9999") return { bankCode, account: "92777202" };
  switch (digits.length) {
    case 5:
    case 6:
      return { bankCode, account: `${digits}00` };
    case 7:
      return { bankCode, account: holds63(`${digits}00`.padStart(10, "0")) ? `${digits}00` : digits };
    case 8:
    case 9:
      return { bankCode, account: digits };
    default:
      return noIbanForAccount(bankCode, account);
  }
};

/** Method 63's check digit in position 8 over positions 2 to 7 (weights 2, 1 from the right, digit sums). */
function holds63(padded: string): boolean {
  let sum = 0;
  for (let position = 7, weight = 2; position >= 2; position--, weight = 3 - weight) {
    const product = (padded.charCodeAt(position - 1) - 48) * weight;
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10 === padded.charCodeAt(7) - 48;
}

/** Rules 0032 to 0035 (HypoVereinsbank): the account's first three digits name the bank code. */
const hypo =
  (special: ReadonlyMap<string, string> | null, refuses800Million: boolean): Rule =>
  (bankCode, account) => {
    if (refuses800Million && between(account.value, 800000000, 899999999)) {
      return noIbanForAccount(bankCode, account);
    }
    return {
      bankCode: HYPO_BANK_CODES.get(account.padded.slice(0, 3)) ?? bankCode,
      account: special?.get(account.padded) ?? account.given,
    };
  };

/** Rule 0036 (Hamburg Commercial Bank): number ranges with an IBAN, 6-digit numbers extended by "000". */
const rule0036: Rule = (_, account) => {
  const value = account.value;
  const bankCode = "20050000";
  if (between(value, 100000, 899999)) return { bankCode, account: `${account.unpadded}000` };
  const kept =
    between(value, 30000000, 59999999) ||
    between(value, 100000000, 899999999) ||
    between(value, 1000000000, 1999999999) ||
    between(value, 3000000000, 7099999999) ||
    between(value, 8500000000, 8599999999) ||
    value >= 9000000000;
  return kept ? { bankCode, account: account.given } : noIbanForAccount(bankCode, account);
};

/**
 * Rule 0042 01 (Deutsche Bundesbank): 10-digit numbers nnn4400001 to nnn4499999 and 8-digit numbers
 * 50462000-50463999 and 50469000-50469999 get IBANs; other 8-digit numbers only with a 0 in position
 * 4 and not 00000 or 00999 in positions 4-8; nothing else. (ibandit tests only the range's two ends;
 * this takes the whole range, as its comment and the rule say.)
 */
const rule0042: Rule = (bankCode, account) => {
  const digits = account.unpadded;
  const value = account.value;
  const listed =
    (digits.length === 10 && between(Number(digits.slice(3)), 4400001, 4499999)) ||
    between(value, 50462000, 50463999) ||
    between(value, 50469000, 50469999);
  if (listed) return { bankCode, account: account.given };
  const middle = digits.slice(3, 8);
  if (digits.length !== 8 || digits[3] !== "0" || middle === "00000" || middle === "00999") {
    return noIbanForAccount(bankCode, account);
  }
  return { bankCode, account: account.given };
};

/** The rules the bundled German banks use, by rule number (the version is the one ported). */
const RULES = new Map<string, Rule>([
  ["0000", standard],
  ["0001", (bankCode) => noIbanForBank(bankCode)],
  ["0004", specialAccounts(RULE_0004)],
  ["0005", rule0005],
  ["0006", specialAccounts(RULE_0006)],
  ["0007", specialAccounts(RULE_0007)],
  ["0008", toBank("50020200")],
  [
    "0010",
    (bankCode, account) => ({
      bankCode: RULE_0010_BANK_CODES.get(bankCode) ?? bankCode,
      account: RULE_0010.get(`${bankCode}_${account.padded}`) ?? account.given,
    }),
  ],
  ["0011", specialAccounts(RULE_0011)],
  ["0012", toBank("50050000")],
  ["0013", toBank("30050000")],
  ["0014", toBank("30060601")],
  ["0015", specialAccounts(RULE_0015)],
  ["0016", specialAccounts(RULE_0016)],
  ["0017", specialAccounts(RULE_0017)],
  ["0018", specialAccounts(RULE_0018)],
  ["0020", rule0020],
  ["0021", toBank("36020030")],
  ["0022", specialAccounts(RULE_0022)],
  ["0023", specialAccounts(RULE_0023)],
  ["0024", specialAccounts(RULE_0024)],
  // Rules 0026, 0027 and 0049 01 concern the check method only; the IBAN follows the standard rule.
  ["0026", standard],
  ["0027", standard],
  [
    "0029",
    // Société Générale: a 10-digit number with a 0 in position 4 loses that 0 and gains a leading one.
    (bankCode, account) => {
      const given = account.given;
      const moved =
        given.length === 10 && given[3] === "0" ? `0${given.slice(0, 3)}${given.slice(4)}` : given;
      return { bankCode, account: moved };
    },
  ],
  ["0032", hypo(null, true)],
  ["0033", hypo(RULE_0033, false)],
  ["0034", hypo(RULE_0034, true)],
  ["0035", hypo(RULE_0035, true)],
  ["0036", rule0036],
  ["0037", toBank("30010700")],
  ["0038", toBank("28590075")],
  ["0039", toBank("28020050")],
  // Bausparkasse Schwäbisch Hall: every payment goes to one account of DZ BANK.
  ["0041", () => ({ bankCode: "50060400", account: "0000011404" })],
  ["0042", rule0042],
  ["0044", specialAccounts(RULE_0044)],
  ["0046", toBank("31010833")],
  [
    "0047",
    // Santander: 8-digit numbers are padded with zeros on the right.
    (bankCode, account) => ({
      bankCode,
      account: account.unpadded.length === 8 ? `${account.unpadded}00` : account.given,
    }),
  ],
  ["0049", standard],
  ["0050", toBank("28550000")],
  ["0051", specialAccounts(RULE_0051)],
  [
    "0053",
    (bankCode, account) => {
      const special = RULE_0053.get(`${bankCode}_${account.padded}`);
      return special ? { bankCode: "60050101", account: special } : { bankCode, account: account.given };
    },
  ],
  ["0057", toBank("66010200")],
]);

/** The IBAN rule numbers implemented here (four digits, without the version), sorted. */
export const GERMAN_IBAN_RULES: readonly string[] = [...RULES.keys()].sort();

function isDigits(text: string, min: number, max: number): boolean {
  if (text.length < min || text.length > max) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * The bank code and 10-digit account number to put in the BBAN of a German IBAN, from a bank code
 * (Bankleitzahl, 8 digits) and a domestic account number (Kontonummer, 1 to 10 digits, leading zeros
 * allowed): the bank's IBAN rule applied, then the account checked with the check method of the bank it
 * ends up at. Otherwise a reason a person can read: malformed input, a bank code the registry does
 * not have, a bank or account that takes no part in payments via IBAN, or an account number that
 * fails its check.
 */
export function germanBban(bankCode: string, account: string, data: GermanBankData): GermanBbanResult {
  if (!isDigits(bankCode, 8, 8))
    return { ok: false, reason: `bank code must be 8 digits, got "${bankCode}"` };
  if (!isDigits(account, 1, 10)) {
    return { ok: false, reason: `account number must be 1 to 10 digits, got "${account}"` };
  }
  const bank = germanBank(data, bankCode);
  if (!bank) return { ok: false, reason: `bank code ${bankCode} is not in the registry of German banks` };
  const padded = account.padStart(10, "0");
  const value = Number(account);
  if (value === 0) return { ok: false, reason: `account number ${account} is not an account` };
  const ruleCode = bank.ibanRule ?? "000000";
  const rule = RULES.get(ruleCode.slice(0, 4));
  if (!rule)
    return { ok: false, reason: `bank ${bankCode} uses IBAN rule ${ruleCode}, which is not supported` };
  const conversion = rule(bankCode, { given: account, padded, unpadded: String(value), value }, bank);
  if ("refusal" in conversion) return { ok: false, reason: conversion.refusal };
  const converted = conversion.account.padStart(10, "0");
  const target = germanBank(data, conversion.bankCode) ?? bank;
  if (checkGermanAccount(target.method, converted, conversion.bankCode) === "failed") {
    const as =
      conversion.bankCode !== bankCode
        ? ` (as ${converted} at bank ${conversion.bankCode}, after IBAN rule ${ruleCode})`
        : converted !== padded
          ? ` (as ${converted}, after IBAN rule ${ruleCode})`
          : "";
    return {
      ok: false,
      reason: `account ${account} fails the check of method ${target.method} used by bank ${conversion.bankCode}${as}`,
    };
  }
  return { ok: true, bankCode: conversion.bankCode, account: converted };
}
