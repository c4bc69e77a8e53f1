/**
 * Micro-benchmark of the German account checks (src/iban/national/germany/methods.ts) over every
 * German bank of the bundled registry, beside the IBAN engine validating the same accounts as IBANs.
 *
 *   bun bench/german-account-checks.ts [rounds]
 *
 * Corpus: for each of the registry's German banks, 8 account numbers from a seeded PRNG, of 6 to 10
 * significant digits; for half of them the last digit is set to the first value that passes the bank's
 * method (where one does), so both accepting and rejecting paths (all variants tried) are exercised.
 * Timing: a seeded sample of 2,048 of those accounts (every method in the mix, the data then in the
 * cache, so this measures the work rather than memory latency); each row makes one pass over it per
 * round, rounds interleaved across rows (300 by default), and reports its fastest round in wall time:
 * on a shared machine the fastest round is the one nobody else interrupted (CPU time also counts the
 * runtime's GC and compiler threads, which swung it by more than the check costs). Then each method
 * alone over its own banks' cases (repeated to 2,048), fastest of 20 passes.
 */
import { createIbanEngine } from "../src/iban/engine.ts";
import { germanBank, parseGermanBanksTsv } from "../src/iban/national/germany/bank-data.ts";
import { checkGermanAccount, checkGermanAccountCodes } from "../src/iban/national/germany/methods.ts";
import { loadIbanRegistry, readIbanRegistryFiles } from "../src/iban/registry.ts";
import { prng } from "../test/support/prng.ts";

const ROUNDS = Number(process.argv[2] ?? 300);
/** Accounts per timed pass: short passes, so that many run uninterrupted on a shared machine. */
const SAMPLE = 2048;
const PER_BANK = 8;

const registry = loadIbanRegistry();
const engine = createIbanEngine(registry);
const banks = [...registry.germany.banks].map(([code, bank]) => [String(code), bank] as const);

interface Case {
  bankCode: string;
  method: string;
  account: string;
  iban: string;
}

function buildCorpus(): Case[] {
  const random = prng(20_260_801);
  const cases: Case[] = [];
  for (const [bankCode, { method }] of banks) {
    for (let i = 0; i < PER_BANK; i++) {
      const length = 6 + random.int(5);
      let account = "";
      for (let j = 0; j < length; j++) account += String(j === 0 ? 1 + random.int(9) : random.int(10));
      account = account.padStart(10, "0");
      if (i % 2 === 0) {
        for (let d = 0; d < 10; d++) {
          const candidate = account.slice(0, 9) + d;
          if (checkGermanAccount(method, candidate, bankCode) !== "failed") {
            account = candidate;
            break;
          }
        }
      }
      // As the engine hands them over: slices of the IBAN it has just read.
      const iban = ibanOf(`${bankCode}${account}`);
      cases.push({ bankCode: iban.slice(4, 12), method, account: iban.slice(12), iban });
    }
  }
  // Shuffle so that consecutive calls do not share a method (as real traffic would not).
  for (let i = cases.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [cases[i], cases[j]] = [cases[j] as Case, cases[i] as Case];
  }
  return cases;
}

function ibanOf(bban: string): string {
  const digits = `${bban}131400`;
  return `DE${String(98n - (BigInt(digits) % 97n)).padStart(2, "0")}${bban}`;
}

interface Row {
  name: string;
  run(item: Case): number;
}

const VALUE = { passed: 1, failed: 2, not_applicable: 3 } as const;
/** The IBAN's character codes, as the engine holds them in its reused buffer. */
const codes = new Uint8Array(64);

/** Reads the IBAN into `codes` (the engine has done so already when it would call the check). */
function readCodes(iban: string): void {
  for (let i = 0; i < iban.length; i++) codes[i] = iban.charCodeAt(i);
}

/** The bank's entry, looked up by the number of the bank code in `codes`. */
function bankOfCodes() {
  let number = 0;
  for (let i = 4; i < 12; i++) number = number * 10 + (codes[i] as number) - 48;
  return registry.germany.banks.get(number);
}

/**
 * What the check adds to `engine.validate`: row 3 minus row 2 is the check itself on the engine's
 * codes; row 2 minus row 1 is re-reading the IBAN and finding the bank's method (with 3,503 banks
 * picked at random, mostly cache misses that real traffic, concentrated on few banks, pays less);
 * row 4 is the same through the string API on the result's fields.
 */
const rows: Row[] = [
  {
    name: "1. engine.validate(German IBAN)",
    run: (item) => (engine.validate(item.iban).valid ? 1 : 0),
  },
  {
    name: "2. + read codes, find the bank's method",
    run: (item) => {
      const valid = engine.validate(item.iban).valid;
      readCodes(item.iban);
      return (bankOfCodes()?.method.length ?? 0) + (valid ? 1 : 0);
    },
  },
  {
    name: "3. + read codes, find the method, checkGermanAccountCodes",
    run: (item) => {
      const result = engine.validate(item.iban);
      readCodes(item.iban);
      const bank = bankOfCodes();
      return bank ? VALUE[checkGermanAccountCodes(bank.method, codes, 12, result.bank_code as string)] : 0;
    },
  },
  {
    name: "4. + germanBank(bank_code), checkGermanAccount(method, account_number, bank_code)",
    run: (item) => {
      const result = engine.validate(item.iban);
      const bank = germanBank(registry.germany, result.bank_code as string);
      if (!bank) return 0;
      return VALUE[
        checkGermanAccount(bank.method, result.account_number as string, result.bank_code as string)
      ];
    },
  },
];

let sink = 0;

/** Nanoseconds per call of one pass over `cases`. */
function pass(row: Row, cases: Case[]): number {
  const run = row.run;
  const start = performance.now();
  for (let i = 0; i < cases.length; i++) sink += run(cases[i] as Case);
  return ((performance.now() - start) * 1e6) / cases.length;
}

/** Start-up: the whole registry load, and the part of it that de-banks.tsv adds (means of 20). */
function meanMs(work: () => unknown): number {
  const start = performance.now();
  for (let i = 0; i < 20; i++) work();
  return (performance.now() - start) / 20;
}
const germanTsv = readIbanRegistryFiles().germany;
const loadMs = meanMs(loadIbanRegistry);
const germanMs = meanMs(() => parseGermanBanksTsv(germanTsv));

const corpus = buildCorpus();
const sample = corpus.slice(0, SAMPLE);
const outcomes = { passed: 0, failed: 0, not_applicable: 0 };
for (const item of corpus) outcomes[checkGermanAccount(item.method, item.account, item.bankCode)]++;
for (const row of rows) for (let i = 0; i < 20; i++) pass(row, sample);
const fastest = new Map(rows.map((row) => [row.name, Number.POSITIVE_INFINITY]));
for (let round = 0; round < ROUNDS; round++) {
  for (const row of rows) fastest.set(row.name, Math.min(fastest.get(row.name) as number, pass(row, sample)));
}

/** Per call of each method over its own banks' cases (repeated to a pass of 2,048), slowest first. */
function perMethod(): [string, number][] {
  const byMethod = new Map<string, Case[]>();
  for (const item of corpus) byMethod.set(item.method, [...(byMethod.get(item.method) ?? []), item]);
  const runs = [...byMethod].map(([method, own]) => ({
    method,
    cases: Array.from({ length: SAMPLE }, (_, i) => own[i % own.length] as Case),
    row: {
      name: method,
      run: (item: Case) => VALUE[checkGermanAccount(method, item.account, item.bankCode)],
    },
  }));
  // Every method warmed up before any is timed, so the first one timed pays for no compilation.
  for (const { row, cases } of runs) for (let i = 0; i < 5; i++) pass(row, cases);
  return runs
    .map(({ method, row, cases }): [string, number] => [
      method,
      Math.min(...Array.from({ length: 20 }, () => pass(row, cases))),
    ])
    .sort((a, b) => b[1] - a[1]);
}

console.log(`Bun ${Bun.version}, ${process.platform}/${process.arch}`);
console.log(
  `Corpus: ${corpus.length} accounts (${PER_BANK} for each of ${banks.length} German banks): ` +
    `${outcomes.passed} passed, ${outcomes.failed} failed, ${outcomes.not_applicable} not_applicable; ` +
    `timed on ${SAMPLE} of them, fastest of ${ROUNDS} interleaved passes per row, wall time per call.\n`,
);
console.log("| Row | ns per call |");
console.log("|---|---:|");
const times = rows.map((row) => fastest.get(row.name) as number);
rows.forEach((row, i) => {
  console.log(`| ${row.name} | ${times[i]?.toFixed(1)} |`);
});
const [engineOnly = 0, lookedUp = 0, checked = 0, viaStrings = 0] = times;
const share = (ns: number) => `${ns.toFixed(1)} ns, ${((ns / engineOnly) * 100).toFixed(0)}% of row 1`;
console.log(`\nThe check on the engine's codes (3 − 2): ${share(checked - lookedUp)}.`);
console.log(`Lookup and check through the string API (4 − 1): ${share(viaStrings - engineOnly)}.`);

const slowest = perMethod()
  .slice(0, 5)
  .map(([method, ns]) => `${method} ${ns.toFixed(0)} ns`);
console.log(`\nSlowest methods (per call, over their own banks' cases): ${slowest.join(", ")}`);
console.log(
  `Registry load (read + parse): ${loadMs.toFixed(2)} ms, of which parsing de-banks.tsv ${germanMs.toFixed(2)} ms`,
);
console.log(`(sum of all outputs, which keeps the work observable: ${sink})`);
