import { checkVatFormat } from "../../src/vat/format/check-vat-format.ts";

/** A country's numbers: a payload of `width` digits, then check characters the format check accepts. */
type Shape = { width: number; checkWidth: number; write: (payload: string, check: string) => string };

const SHAPES = {
  NL: { width: 8, checkWidth: 1, write: (payload, check) => `NL${payload}${check}B01` },
  DE: { width: 8, checkWidth: 1, write: (payload, check) => `DE${payload}${check}` },
  BE: { width: 7, checkWidth: 2, write: (payload, check) => `BE0${payload}${check}` },
  DK: { width: 7, checkWidth: 1, write: (payload, check) => `DK${payload}${check}` },
  FI: { width: 7, checkWidth: 1, write: (payload, check) => `FI${payload}${check}` },
  HU: { width: 7, checkWidth: 1, write: (payload, check) => `HU${payload}${check}` },
  PL: { width: 9, checkWidth: 1, write: (payload, check) => `PL${payload}${check}` },
  EE: { width: 8, checkWidth: 1, write: (payload, check) => `EE${payload}${check}` },
  LU: { width: 6, checkWidth: 2, write: (payload, check) => `LU${payload}${check}` },
  SI: { width: 7, checkWidth: 1, write: (payload, check) => `SI${payload}${check}` },
  AT: { width: 7, checkWidth: 1, write: (payload, check) => `ATU${payload}${check}` },
  CZ: { width: 7, checkWidth: 1, write: (payload, check) => `CZ${payload}${check}` },
  FR: { width: 9, checkWidth: 2, write: (payload, check) => `FR${check}${payload}` },
  PT: { width: 8, checkWidth: 1, write: (payload, check) => `PT${payload}${check}` },
  SE: { width: 9, checkWidth: 1, write: (payload, check) => `SE${payload}${check}01` },
  EL: { width: 8, checkWidth: 1, write: (payload, check) => `EL${payload}${check}` },
  HR: { width: 10, checkWidth: 1, write: (payload, check) => `HR${payload}${check}` },
  MT: { width: 6, checkWidth: 2, write: (payload, check) => `MT${payload}${check}` },
  BG: { width: 8, checkWidth: 1, write: (payload, check) => `BG${payload}${check}` },
  RO: { width: 7, checkWidth: 1, write: (payload, check) => `RO${payload}${check}` },
} as const satisfies Record<string, Shape>;

export type BenchPrefix = keyof typeof SHAPES;

/** Every state with a shape here but Germany: the healthy ones beside a Germany that fails in the fairness runs. */
export const PREFIXES_BUT_DE = (Object.keys(SHAPES) as BenchPrefix[]).filter((prefix) => prefix !== "DE");

/** A source of format-valid VAT numbers, none of which it has returned before. */
export interface VatNumberSource {
  /** `count` new numbers, cycling over `prefixes`. */
  take(count: number, prefixes: readonly BenchPrefix[]): string[];
}

/**
 * Synthetic numbers from a counter per country; the check characters are found by asking
 * the service's own format check, so the numbers pass it without a second implementation
 * of the check-digit rules. Deterministic: every run sees the same numbers.
 */
export function createVatNumberSource(): VatNumberSource {
  const counters = Object.fromEntries(Object.keys(SHAPES).map((prefix) => [prefix, 0])) as Record<
    BenchPrefix,
    number
  >;

  const next = (prefix: BenchPrefix): string => {
    const { width, checkWidth, write }: Shape = SHAPES[prefix];
    for (;;) {
      const payload = String(10 ** (width - 1) + counters[prefix]++);
      if (payload.length > width) throw new Error(`ran out of ${prefix} numbers`);
      // Payloads whose check has no solution (the NL elfproef's remainder 10) are skipped.
      for (let check = 0; check < 10 ** checkWidth; check++) {
        const candidate = write(payload, String(check).padStart(checkWidth, "0"));
        if (checkVatFormat(candidate).ok) return candidate;
      }
    }
  };

  return {
    take(count, prefixes) {
      return Array.from({ length: count }, (_, i) => next(prefixes[i % prefixes.length] as BenchPrefix));
    },
  };
}
