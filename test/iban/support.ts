import { readFileSync } from "node:fs";
import { createIbanEngine } from "../../src/iban/engine.ts";
import { type CountryFormat, loadIbanRegistry } from "../../src/iban/registry.ts";

export const registry = loadIbanRegistry();
export const engine = createIbanEngine(registry);

const DIGITS = "0123456789";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const POOLS: Record<string, string> = { n: DIGITS, a: LETTERS, c: DIGITS + LETTERS };

/**
 * ISO 13616 check digits, computed the textbook way (digit string and BigInt) as an oracle that shares
 * nothing with the engine's chunked implementation.
 */
export function checkDigits(country: string, bban: string): string {
  const digits = [...`${bban}${country}00`]
    .map((ch) => (ch >= "A" ? String(ch.charCodeAt(0) - 55) : ch))
    .join("");
  return String(98n - (BigInt(digits) % 97n)).padStart(2, "0");
}

/** A random BBAN that fits the format, with `fixed` written over its start position when given. */
export function randomBban(
  format: CountryFormat,
  random: () => number,
  fixed?: { at: number; text: string },
) {
  let bban = "";
  for (const kind of format.bbanClasses) {
    const pool = POOLS[kind] as string;
    bban += pool[Math.floor(random() * pool.length)];
  }
  return fixed ? bban.slice(0, fixed.at) + fixed.text + bban.slice(fixed.at + fixed.text.length) : bban;
}

/** A valid IBAN for the country with the given BBAN. */
export function ibanOf(country: string, bban: string): string {
  return `${country}${checkDigits(country, bban)}${bban}`;
}

export interface BankRow {
  country: string;
  code: string;
  bic: string;
  name: string;
}

/** The committed banks.tsv, read plainly (not through the engine's parser). */
export function committedBanks(): BankRow[] {
  const text = readFileSync(new URL("../../registry/data/banks.tsv", import.meta.url), "utf8");
  return text
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((line) => {
      const [country = "", code = "", bic = "", name = ""] = line.split("\t");
      return { country, code, bic, name };
    });
}
