/**
 * Germany's national check: the account number (BBAN 8-17) under the Bundesbank check method of its bank
 * (BBAN 0-7), as the bundled registry assigns it. A bank the registry does not know has no known method.
 */
import type { ApiErrorBody } from "../../../kernel/errors.ts";
import { type NationalRule, nationalWarning } from "../rule.ts";
import { type GermanBankData, germanBank } from "./bank-data.ts";
import { checkGermanAccountCodes } from "./methods.ts";

export function germanRule(data: GermanBankData): NationalRule {
  /** One warning per method, built on its first failure. */
  const warnings = new Map<string, ApiErrorBody>();
  return {
    judge(codes, at, bankCode) {
      let number = 0;
      for (let i = at; i < at + 8; i++) number = number * 10 + (codes[i] as number) - 48;
      const bank = data.banks.get(number);
      if (bank === undefined || bankCode === null) return "not_applicable";
      return checkGermanAccountCodes(bank.method, codes, at + 8, bankCode);
    },
    warning(bankCode) {
      // Only asked after a failure, which a known bank's method gave.
      const method = germanBank(data, bankCode as string)?.method as string;
      let warning = warnings.get(method);
      if (warning === undefined) {
        warning = nationalWarning(
          `the account number fails check method ${method} of the Deutsche Bundesbank, which its bank uses`,
        );
        warnings.set(method, warning);
      }
      return warning;
    },
  };
}
