/**
 * Countries whose BBAN is the bank code, the branch code where there is one, and the account number
 * (check digits included) as printed: nothing to look up or compute; the RIB is one of them. Layouts are the registry's (tested
 * against it); `pad` where account numbers are written without their leading zeros. DK and HR numbers
 * are often printed as "bank-account" in one string (`345-3179681`, `1001005-1863000160`).
 */
import { RIB_COUNTRIES } from "../../national/rib.ts";
import type { CountryBuilder } from "../country-builder.ts";
import { assemble, type Layout } from "../layout.ts";
import type { DomesticParts } from "../parts.ts";

type Row = Omit<Layout, "country"> & { bankDashAccount?: boolean };

const ROWS: Record<string, Row> = {
  AT: { bank: 5, branch: 0, rest: 11, pad: true },
  BE: { bank: 3, branch: 0, rest: 9, pad: true },
  DK: { bank: 4, branch: 0, rest: 10, pad: true, bankDashAccount: true },
  ES: { bank: 4, branch: 4, rest: 12, pad: false },
  HR: { bank: 7, branch: 0, rest: 10, pad: true, bankDashAccount: true },
  LT: { bank: 5, branch: 0, rest: 11, pad: true },
  LU: { bank: 3, branch: 0, rest: 13, pad: false },
  LV: { bank: 4, branch: 0, rest: 13, pad: false },
  NO: { bank: 4, branch: 0, rest: 7, pad: true },
  PT: { bank: 4, branch: 4, rest: 13, pad: true },
  SI: { bank: 5, branch: 0, rest: 10, pad: true },
};
/** France, Monaco, the French territories and the RIB countries of Central Africa: a RIB, key included. */
for (const country of RIB_COUNTRIES) ROWS[country] = { bank: 5, branch: 5, rest: 13, pad: false };

/** "345-3179681" with no `bank_code`: the bank is what comes before the first dash, zero-padded. */
function splitBankDashAccount(parts: DomesticParts, bankLength: number): DomesticParts {
  const account = parts.account_number ?? "";
  const dash = account.indexOf("-");
  if (parts.bank_code !== undefined || dash < 1 || dash > bankLength) return parts;
  return {
    ...parts,
    bank_code: account.slice(0, dash).trim().padStart(bankLength, "0"),
    account_number: account.slice(dash + 1),
  };
}

export const PLAIN_BUILDERS: Record<string, CountryBuilder> = Object.fromEntries(
  Object.entries(ROWS).map(([country, { bankDashAccount, ...layout }]) => {
    const builder: CountryBuilder = (parts, { format }) =>
      assemble(
        bankDashAccount ? splitBankDashAccount(parts, layout.bank) : parts,
        { country, ...layout },
        format,
      );
    return [country, builder];
  }),
);
