/**
 * Micro-benchmark of the German account checks (src/iban/national/germany/methods.ts) over every
 * German bank of the bundled registry, beside the IBAN engine validating the same accounts as IBANs.
 *
 *   bun bench/german-account-checks.ts [seconds per round]
 *
 * Corpus: for each of the registry's German banks, 8 account numbers from a seeded PRNG, of 6 to 10
 * significant digits; for half of them the last digit is set to the first value that passes the bank's
 * method (where one does), so both accepting and rejecting paths (all variants tried) are exercised.
 * Each row runs in rounds of CPU time, interleaved, and reports the median; then each method alone over
 * its own banks' cases (a small set, so hot in the cache).
 */
import { createIbanEngine } from "../src/iban/engine.ts";
import { germanBank } from "../src/iban/national/germany/bank-data.ts";
import { checkGermanAccount, checkGermanAccountCodes } from "../src/iban/national/germany/methods.ts";
import { loadIbanRegistry } from "../src/iban/registry.ts";
import { prng } from "../test/support/prng.ts";

const SECONDS_PER_ROUND = Number(process.argv[2] ?? 1);
const ROUNDS = 7;
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

/**
 * The check's real cost is what it adds to `engine.validate`, on the strings or codes the engine has just
 * produced: the later rows minus the first. (Checking the 28,000 stored slices on their own mostly
 * measures cache misses.) The last row re-reads the IBAN into a buffer, which the engine has already
 * done when it would call the check, so it overstates that cost slightly.
 */
const rows: Row[] = [
  {
    name: "engine.validate(German IBAN)",
    run: (item) => (engine.validate(item.iban).valid ? 1 : 0),
  },
  {
    name: "+ germanBank(bank_code) + checkGermanAccount(method, account_number, bank_code)",
    run: (item) => {
      const result = engine.validate(item.iban);
      const bank = germanBank(registry.germany, result.bank_code as string);
      if (!bank) return 0;
      return VALUE[
        checkGermanAccount(bank.method, result.account_number as string, result.bank_code as string)
      ];
    },
  },
  {
    name: "+ lookup by the code's number + checkGermanAccountCodes(method, codes, 12, bank_code)",
    run: (item) => {
      const result = engine.validate(item.iban);
      const iban = item.iban;
      for (let i = 0; i < iban.length; i++) codes[i] = iban.charCodeAt(i);
      let number = 0;
      for (let i = 4; i < 12; i++) number = number * 10 + (codes[i] as number) - 48;
      const bank = registry.germany.banks.get(number);
      if (!bank) return 0;
      return VALUE[checkGermanAccountCodes(bank.method, codes, 12, result.bank_code as string)];
    },
  },
];

let sink = 0;

/** Nanoseconds of CPU time per call, over about `seconds`. */
function measure(row: Row, corpus: Case[], seconds: number): number {
  Bun.gc(true);
  const run = row.run;
  for (let i = 0; i < corpus.length; i++) sink += run(corpus[i] as Case);
  let calls = 0;
  const cpuStart = process.cpuUsage();
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    for (let i = 0; i < corpus.length; i++) sink += run(corpus[i] as Case);
    calls += corpus.length;
  }
  const cpu = process.cpuUsage(cpuStart);
  return ((cpu.user + cpu.system) * 1000) / calls;
}

const parseStart = performance.now();
for (let i = 0; i < 10; i++) loadIbanRegistry();
const loadMs = (performance.now() - parseStart) / 10;

const corpus = buildCorpus();
const outcomes = { passed: 0, failed: 0, not_applicable: 0 };
for (const item of corpus) outcomes[checkGermanAccount(item.method, item.account, item.bankCode)]++;
for (const row of rows) measure(row, corpus, Math.min(0.5, SECONDS_PER_ROUND));
const rounds = new Map(rows.map((row) => [row.name, [] as number[]]));
for (let round = 0; round < ROUNDS; round++) {
  for (const row of rows) rounds.get(row.name)?.push(measure(row, corpus, SECONDS_PER_ROUND));
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** CPU time per call of each method over its own banks' cases (hot in the cache), slowest first. */
function perMethod(): [string, number][] {
  const byMethod = new Map<string, Case[]>();
  for (const item of corpus) byMethod.set(item.method, [...(byMethod.get(item.method) ?? []), item]);
  return [...byMethod]
    .map(([method, cases]): [string, number] => {
      const row = {
        name: method,
        run: (item: Case) => VALUE[checkGermanAccount(method, item.account, item.bankCode)],
      };
      return [method, median([0, 1, 2].map(() => measure(row, cases, 0.03)))];
    })
    .sort((a, b) => b[1] - a[1]);
}

console.log(`Bun ${Bun.version}, ${process.platform}/${process.arch}`);
console.log(
  `Corpus: ${corpus.length} accounts (${PER_BANK} for each of ${banks.length} German banks): ` +
    `${outcomes.passed} passed, ${outcomes.failed} failed, ${outcomes.not_applicable} not_applicable; ` +
    `${ROUNDS} rounds of ${SECONDS_PER_ROUND}s, median round, CPU time per call.\n`,
);
console.log("| Row | ns per call |");
console.log("|---|---:|");
const [engineOnly, ...withCheck] = rows.map((row) => median(rounds.get(row.name) ?? [])) as number[];
console.log(`| ${rows[0]?.name} | ${engineOnly?.toFixed(1)} |`);
withCheck.forEach((ns, i) => {
  const added = ns - (engineOnly as number);
  const share = ((added / (engineOnly as number)) * 100).toFixed(0);
  console.log(`| ${rows[i + 1]?.name} | ${ns.toFixed(1)} (adds ${added.toFixed(1)}, ${share}%) |`);
});
const slowest = perMethod()
  .slice(0, 5)
  .map(([method, ns]) => `${method} ${ns.toFixed(0)} ns`);
console.log(`\nSlowest methods (CPU time per call over their own banks' cases): ${slowest.join(", ")}`);
console.log(`Registry load with de-banks.tsv (read + parse, mean of 10): ${loadMs.toFixed(2)} ms`);
console.log(`(sum of all outputs, which keeps the work observable: ${sink})`);
