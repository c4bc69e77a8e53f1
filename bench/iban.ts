/**
 * IBAN validation throughput: our engine (full IbanResult with parsed parts and bank) against the
 * ibantools, iban and ibankit packages, on one mixed corpus, single-threaded, in one run.
 *
 *   bun bench/iban.ts [seconds-per-round]
 *
 * Each implementation is warmed up, then measured for a fixed time per round; rounds are interleaved
 * across implementations and the median round is reported, as operations per CPU-second.
 */
import { createRequire } from "node:module";
import { IBAN as IbanKit } from "ibankit";
import { electronicFormatIBAN, extractIBAN, isValidIBAN } from "ibantools";
import { createIbanEngine } from "../src/iban/engine.ts";
import { parseIbanRegistry, readIbanRegistryFiles } from "../src/iban/registry.ts";
import { prng } from "../test/support/prng.ts";

/** The `iban` package ships no type declarations; this is the part of its API the benchmark calls. */
const IBAN = createRequire(import.meta.url)("iban") as {
  isValid(iban: string): boolean;
  electronicFormat(iban: string): string;
  printFormat(iban: string): string;
};

const SECONDS_PER_ROUND = Number(process.argv[2] ?? 1);
const ROUNDS = 7;
const CORPUS_SIZE = 10_000;
const VALID_SHARE = 0.7;

/** Registry load: read the committed files, parse them, compile the engine. First (cold) and warm. */
function measureLoad() {
  const times: { read: number; parse: number; compile: number }[] = [];
  let engine: ReturnType<typeof createIbanEngine> | undefined;
  for (let i = 0; i < 11; i++) {
    const t0 = performance.now();
    const files = readIbanRegistryFiles();
    const t1 = performance.now();
    const registry = parseIbanRegistry(files);
    const t2 = performance.now();
    engine = createIbanEngine(registry);
    times.push({ read: t1 - t0, parse: t2 - t1, compile: performance.now() - t2 });
  }
  return {
    engine: engine as ReturnType<typeof createIbanEngine>,
    cold: times[0],
    warm: median(times.slice(1)),
  };
}

function median(times: { read: number; parse: number; compile: number }[]) {
  const pick = (key: "read" | "parse" | "compile") => {
    const sorted = times.map((time) => time[key]).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] as number;
  };
  return { read: pick("read"), parse: pick("parse"), compile: pick("compile") };
}

const load = measureLoad();
const engine = load.engine;
/** The same engine without national checks (an empty table of rules), to price them. */
const engineWithoutNational = createIbanEngine(parseIbanRegistry(readIbanRegistryFiles()), new Map());

// The property tests' IBAN generator; imported after the load measurement so that it stays cold.
const { ibanOf, randomBban, registry } = await import("../test/iban/support.ts");
const vectors = (await import("../test/fixtures/ibans.json")).default;
const examples = (await import("../test/fixtures/iban-examples.json")).default as Record<string, string>;

/**
 * 70% valid, 30% invalid (checksum, length and structure errors, unknown countries); half of the inputs
 * are reprinted in print format, the rest kept as their source wrote them.
 */
function buildCorpus(): string[] {
  const random = prng(97).next;
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)] as T;
  const printed = (iban: string) => iban.replace(/(.{4})/g, "$1 ").trim();
  const generated: string[] = [];
  for (const [country, format] of registry.formats) {
    for (let i = 0; i < 20; i++) generated.push(ibanOf(country, randomBban(format, random)));
  }
  const valid = [...vectors.valid.map((vector) => vector.input), ...Object.values(examples), ...generated];
  const bumpLastDigit = (iban: string) => {
    const at = iban.search(/\d\D*$/);
    return `${iban.slice(0, at)}${(Number(iban[at]) + 1) % 10}${iban.slice(at + 1)}`;
  };
  const mutations = [
    bumpLastDigit,
    (iban: string) => iban.slice(0, -1),
    (iban: string) => `${iban.slice(0, 4)}!${iban.slice(5)}`,
    (iban: string) => `XX${iban.slice(2)}`,
  ];
  const invalid = [
    ...vectors.invalid.map((vector) => vector.input),
    ...generated.map((iban) => pick(mutations)(iban)),
  ];
  const corpus: string[] = [];
  for (let i = 0; i < CORPUS_SIZE; i++) {
    const input = random() < VALID_SHARE ? pick(valid) : pick(invalid);
    corpus.push(random() < 0.5 ? printed(input.replace(/\s/g, "")) : input);
  }
  return corpus;
}

/** The textbook snippet: strip spaces, move four characters to the end, letters to numbers, mod 97. */
function minimalMod97(input: string): boolean {
  const iban = input.replace(/\s+/g, "").toUpperCase();
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (let i = 0; i < rearranged.length; i++) {
    const c = rearranged.charCodeAt(i);
    rest = c >= 65 ? (rest * 100 + c - 55) % 97 : (rest * 10 + c - 48) % 97;
  }
  return rest === 1;
}

interface Candidate {
  name: string;
  library: boolean;
  run: (input: string) => number;
}

/** Each `run` returns a number derived from its output, summed into `sink`, so no work can be skipped. */
/** What both engine rows return: derived from the parts, the bank and the national verdict. */
const engineOutput = (result: ReturnType<typeof engine.validate>) =>
  result.valid
    ? (result.bank?.bic.length ?? 1) + (result.account_number?.length ?? 0) + result.national_check.length
    : 0;

const WITH_NATIONAL = "this engine: validate (full IbanResult: parts, SEPA, bank, national check)";
const WITHOUT_NATIONAL = "this engine without national checks (national_check always not_applicable)";

const candidates: Candidate[] = [
  { name: WITH_NATIONAL, library: false, run: (input) => engineOutput(engine.validate(input)) },
  {
    name: WITHOUT_NATIONAL,
    library: false,
    run: (input) => engineOutput(engineWithoutNational.validate(input)),
  },
  {
    name: "ibantools: isValidIBAN(electronicFormatIBAN())",
    library: true,
    run: (input) => (isValidIBAN(electronicFormatIBAN(input) ?? "") ? 1 : 0),
  },
  {
    name: "ibantools: extractIBAN (validates and parses)",
    library: true,
    run: (input) => {
      const result = extractIBAN(input);
      return result.valid ? (result.bankIdentifier?.length ?? 1) + (result.accountNumber?.length ?? 0) : 0;
    },
  },
  {
    name: "iban: IBAN.isValid",
    library: true,
    run: (input) => (IBAN.isValid(input) ? 1 : 0),
  },
  {
    name: "iban: IBAN.isValid + electronicFormat + printFormat",
    library: true,
    run: (input) =>
      IBAN.isValid(input) ? IBAN.electronicFormat(input).length + IBAN.printFormat(input).length : 0,
  },
  {
    name: "ibankit: IBAN.isValid",
    library: true,
    run: (input) => (IbanKit.isValid(input) ? 1 : 0),
  },
  {
    name: "ibankit: IBAN.isValid + new IBAN() getters",
    library: true,
    run: (input) => {
      if (!IbanKit.isValid(input)) return 0;
      const iban = new IbanKit(input);
      return (
        (iban.getBankCode()?.length ?? 0) +
        (iban.getBranchCode()?.length ?? 0) +
        (iban.getAccountNumber()?.length ?? 0) +
        iban.getBban().length +
        iban.toFormattedString().length
      );
    },
  },
  {
    name: "reference: minimal hand-written mod-97 check (no country/length/structure)",
    library: false,
    run: (input) => (minimalMod97(input) ? 1 : 0),
  },
];

let sink = 0;

/**
 * Runs `candidate` over the corpus for about `seconds` and returns operations per second of CPU time
 * used by this process (GC threads included). CPU time rather than wall time, because the machines
 * this runs on are shared: time spent descheduled is nobody's cost.
 */
function measure(candidate: Candidate, corpus: string[], seconds: number): number {
  // Collect the previous candidate's garbage first, so that nobody pays for another's allocations,
  // and take one unmeasured pass to bring this candidate's code and data back into the caches.
  Bun.gc(true);
  const run = candidate.run;
  for (let i = 0; i < corpus.length; i++) sink += run(corpus[i] as string);
  let operations = 0;
  const cpuStart = process.cpuUsage();
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    for (let i = 0; i < corpus.length; i++) sink += run(corpus[i] as string);
    operations += corpus.length;
  }
  const cpu = process.cpuUsage(cpuStart);
  return operations / ((cpu.user + cpu.system) / 1e6);
}

const corpus = buildCorpus();
const share = (test: (input: string) => boolean) =>
  `${((corpus.filter(test).length / corpus.length) * 100).toFixed(1)}%`;
for (const candidate of candidates) measure(candidate, corpus, Math.min(0.5, SECONDS_PER_ROUND));
const rounds = new Map(candidates.map((candidate) => [candidate.name, [] as number[]]));
for (let round = 0; round < ROUNDS; round++) {
  for (const candidate of candidates)
    rounds.get(candidate.name)?.push(measure(candidate, corpus, SECONDS_PER_ROUND));
}
const medians = candidates.map((candidate) => {
  const sorted = [...(rounds.get(candidate.name) ?? [])].sort((a, b) => a - b);
  return { candidate, opsPerSecond: sorted[Math.floor(sorted.length / 2)] as number };
});
const fastestLibrary = Math.max(
  ...medians.filter((row) => row.candidate.library).map((row) => row.opsPerSecond),
);

const ms = (value: number) => `${value.toFixed(2)} ms`;
console.log(`Bun ${Bun.version}, ${process.platform}/${process.arch}`);
console.log(
  `Corpus: ${corpus.length} inputs, ${share((input) => engine.validate(input).valid === true)} valid by this engine, ` +
    `${share((input) => input.includes(" "))} with spaces; ` +
    `${ROUNDS} rounds of ${SECONDS_PER_ROUND}s each after warm-up, median round; ops per CPU-second.\n`,
);
console.log("| Implementation | ops per CPU-second | × fastest library |");
console.log("|---|---:|---:|");
for (const { candidate, opsPerSecond } of medians) {
  const ops = Math.round(opsPerSecond).toLocaleString("en-US");
  console.log(`| ${candidate.name} | ${ops} | ${(opsPerSecond / fastestLibrary).toFixed(2)} |`);
}
const opsOf = (name: string) => medians.find((row) => row.candidate.name === name)?.opsPerSecond ?? 0;
const nationalShare = 1 - opsOf(WITH_NATIONAL) / opsOf(WITHOUT_NATIONAL);
console.log(
  `\nNational checks: ${(nationalShare * 100).toFixed(1)} % of the engine's time per input ` +
    `(${share((input) => engine.validate(input).national_check !== "not_applicable")} of the inputs judged; ` +
    "1 − with ÷ without, median rounds)",
);
console.log(
  `\nRegistry load (read files + parse + compile): first ${ms(load.cold?.read ?? 0)} + ${ms(load.cold?.parse ?? 0)} + ` +
    `${ms(load.cold?.compile ?? 0)}; warm median ${ms(load.warm.read)} + ${ms(load.warm.parse)} + ${ms(load.warm.compile)}`,
);
console.log(`(sum of all outputs, which keeps the work observable: ${sink})`);
