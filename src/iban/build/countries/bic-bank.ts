/**
 * Countries whose IBAN bank code is the first four letters of the bank's BIC: GB and IE (bank code, sort
 * code, account number of 6 to 8 digits) and NL (bank code, account number of up to 10 digits). The bundled
 * registry has no sort codes to find a bank by, so the bank is sent: its 4-letter code, or its BIC.
 */
import type { CountryBuilder } from "../country-builder.ts";
import { assemble, type Layout } from "../layout.ts";
import { compact, type DomesticParts, malformed, missing, quoted } from "../parts.ts";

const LAYOUTS: Record<string, Omit<Layout, "country">> = {
  GB: { bank: 4, branch: 6, rest: 8, pad: true },
  IE: { bank: 4, branch: 6, rest: 8, pad: true },
  NL: { bank: 4, branch: 0, rest: 10, pad: true },
};

const BIC = /^[A-Z]{4}([A-Z]{2})[A-Z0-9]{2}([A-Z0-9]{3})?$/;

function builder(country: string): CountryBuilder {
  const layout = { country, ...(LAYOUTS[country] as Omit<Layout, "country">) };
  const whole = layout.bank + layout.branch + layout.rest;
  return (parts, { format }) => {
    const bank = (parts.bank_code ?? "").trim().toUpperCase();
    const bic = BIC.exec(bank);
    if (bic && bic[1] !== country) {
      return malformed(
        `\`bank_code\` ${quoted(parts.bank_code)} is the BIC of a bank in ${bic[1]}, not ${country}`,
      );
    }
    const given: DomesticParts = bic ? { ...parts, bank_code: bank.slice(0, 4) } : parts;
    if (bank === "" && compact(parts.account_number).length !== whole) {
      return missing(
        `send \`bank_code\`: the bank's 4-letter code or its BIC (${country} bank codes come from the BIC; the registry has no sort codes to find them by)`,
      );
    }
    return assemble(given, layout, format);
  };
}

export const BIC_BANK_BUILDERS: Record<string, CountryBuilder> = {
  GB: builder("GB"),
  IE: builder("IE"),
  NL: builder("NL"),
};
