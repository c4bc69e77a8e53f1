/**
 * The common shape of a domestic account number: a bank code, perhaps a branch code, then the rest of the
 * BBAN (the account, its check digits included), which most countries print without leading zeros. The
 * whole BBAN in `account_number` is taken as well, as several central banks print it (NO, SI, LV).
 */
import type { CountryFormat } from "../registry.ts";
import { type Bban, compact, type DomesticParts, malformed, missing, quoted } from "./parts.ts";

export interface Layout {
  country: string;
  /** Characters of the bank code and of the branch code (0: none), then of the rest. */
  bank: number;
  branch: number;
  rest: number;
  /** The rest may be written without its leading zeros (an account number rather than a fixed code). */
  pad: boolean;
}

/** The BBAN of `parts` under `layout`, its characters checked against the country's structure. */
export function assemble(parts: DomesticParts, layout: Layout, format: CountryFormat): Bban {
  const { country, bank: bankLength, branch: branchLength, rest } = layout;
  const length = bankLength + branchLength + rest;
  let account = compact(parts.account_number);
  const bank = compact(parts.bank_code);
  let branch = compact(parts.branch_code);
  // The branch printed in front of the account (a French RIB after its bank code).
  if (branchLength > 0 && branch === "" && bank !== "" && account.length === branchLength + rest) {
    branch = account.slice(0, branchLength);
    account = account.slice(branchLength);
  }
  if (account === "") return missing(`send \`account_number\`: the ${country} account number`);
  if (branchLength === 0 && branch !== "") return malformed(`${country} account numbers have no branch code`);
  let bban: string;
  if (account.length === length) {
    const bankIn = account.slice(0, bankLength);
    const branchIn = account.slice(bankLength, bankLength + branchLength);
    if (bank !== "" && bank !== bankIn) {
      return malformed(
        `\`bank_code\` ${quoted(parts.bank_code)} is not the bank of the account number (${bankIn})`,
      );
    }
    if (branch !== "" && branch !== branchIn) {
      return malformed(
        `\`branch_code\` ${quoted(parts.branch_code)} is not the branch of the account number (${branchIn})`,
      );
    }
    bban = account;
  } else {
    const codes = branchLength > 0 ? "`bank_code` and `branch_code`" : "`bank_code`";
    if ((bankLength > 0 && bank === "") || (branchLength > 0 && branch === "")) {
      return missing(
        `send ${codes} with the account number, or the whole ${length}-character number as \`account_number\``,
      );
    }
    if (bank.length !== bankLength) {
      return malformed(
        `\`bank_code\` of ${country} has ${bankLength} characters, got ${quoted(parts.bank_code)}`,
      );
    }
    if (branch.length !== branchLength) {
      return malformed(
        `\`branch_code\` of ${country} has ${branchLength} characters, got ${quoted(parts.branch_code)}`,
      );
    }
    if (account.length > rest || (!layout.pad && account.length < rest)) {
      const upTo = layout.pad ? "up to " : "";
      return malformed(
        `\`account_number\` of ${country} has ${upTo}${rest} characters after ${codes}, or ${length} in all, got ${account.length}`,
      );
    }
    bban = bank + branch + account.padStart(rest, "0");
  }
  return checkCharacters(bban, format, (index) =>
    index < bankLength ? "bank_code" : index < bankLength + branchLength ? "branch_code" : "account_number",
  );
}

const KINDS: Record<string, [RegExp, string]> = {
  n: [/[0-9]/, "a digit"],
  a: [/[A-Z]/, "a letter"],
  c: [/[0-9A-Z]/, "a letter or digit"],
};

/**
 * `bban` if each of its characters is of the kind the country's structure has at its place; otherwise
 * the refusal names the part it came from (`partAt(index)`).
 */
export function checkCharacters(
  bban: string,
  format: CountryFormat,
  partAt: (index: number) => string,
): Bban {
  if (bban.length !== format.bbanClasses.length) {
    return malformed(`the parts make ${bban.length} characters, a BBAN has ${format.bbanClasses.length}`);
  }
  for (let i = 0; i < bban.length; i++) {
    const [pattern, kind] = KINDS[format.bbanClasses[i] as string] as [RegExp, string];
    if (!pattern.test(bban[i] as string)) {
      return malformed(`\`${partAt(i)}\` has ${quoted(bban[i])} where ${kind} belongs`);
    }
  }
  return { bban };
}
