import { checkVatFormat } from "../../src/vat/format/check-vat-format.ts";
import type { Random } from "./prng.ts";

/** Shapes of numbers our format check accepts when their check digit is right. */
const SHAPES: { prefix: string; digits: number; first?: string }[] = [
  { prefix: "DK", digits: 8 },
  { prefix: "FI", digits: 8 },
  { prefix: "DE", digits: 9, first: "123456789" },
  { prefix: "HU", digits: 8 },
  { prefix: "PL", digits: 10 },
  { prefix: "EE", digits: 9 },
  { prefix: "LU", digits: 8 },
  { prefix: "SI", digits: 8, first: "123456789" },
];

/**
 * Returns a generator of distinct VAT numbers that pass our format check (so they go to
 * VIES), spread over several member states so no one state's concurrency limit is the
 * bottleneck. Random digits are drawn until the check digit happens to be right.
 */
export function wellFormedVatNumbers(random: Random): () => string {
  const issued = new Set<string>();
  return () => {
    for (;;) {
      const shape = random.pick(SHAPES);
      let number = shape.first ? random.pick([...shape.first]) : String(random.int(10));
      while (number.length < shape.digits) number += String(random.int(10));
      const candidate = shape.prefix + number;
      if (issued.has(candidate) || !checkVatFormat(candidate).ok) continue;
      issued.add(candidate);
      return candidate;
    }
  };
}

/**
 * `count` distinct well-formed Danish numbers, in order from `from` (an 8-digit number): about
 * one candidate in eleven has the right check digit. Deterministic, for lists of thousands.
 */
export function danishNumbers(count: number, from = 10_000_000): string[] {
  const numbers: string[] = [];
  for (let candidate = from; numbers.length < count; candidate++) {
    if (checkVatFormat(`DK${candidate}`).ok) numbers.push(`DK${candidate}`);
  }
  return numbers;
}
