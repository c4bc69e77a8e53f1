import { Buffer } from "node:buffer";
import { mod97 } from "../mod97.ts";

/** The ISO 13616 check digits of `country` and `bban` (digits and upper-case letters): 98 − (BBAN ∥ CC ∥ 00) mod 97. */
export function ibanCheckDigits(country: string, bban: string): string {
  const codes = Buffer.from(`${country}00${bban}`, "latin1");
  return String(98 - mod97(codes, 0, codes.length)).padStart(2, "0");
}
