/**
 * Runs the benchmarks one after another, each in a process of its own so that none inherits
 * another's compiled code or garbage: `bun bench/run.ts [iban|http|vat|batch|monitors|fairness|matching ...]`, all by default.
 */
import { spawn } from "bun";

const BENCHMARKS = {
  iban: "bench/iban.ts",
  http: "bench/http.ts",
  vat: "bench/vat.ts",
  batch: "bench/batch.ts",
  monitors: "bench/monitors.ts",
  fairness: "bench/fairness.ts",
  matching: "bench/matching.ts",
} as const;

type Benchmark = keyof typeof BENCHMARKS;

const isBenchmark = (name: string): name is Benchmark => Object.hasOwn(BENCHMARKS, name);

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !isBenchmark(name));
if (unknown.length > 0) {
  process.stderr.write(
    `unknown benchmark ${unknown.join(", ")}; choose from ${Object.keys(BENCHMARKS).join(", ")}\n`,
  );
  process.exit(2);
}
const selected =
  requested.length > 0 ? requested.filter(isBenchmark) : (Object.keys(BENCHMARKS) as Benchmark[]);

for (const name of selected) {
  process.stdout.write(`\n## ${name} (${new Date().toISOString()})\n\n`);
  const child = spawn([process.execPath, BENCHMARKS[name]], { stdio: ["ignore", "inherit", "inherit"] });
  const code = await child.exited;
  if (code !== 0) {
    process.stderr.write(`${BENCHMARKS[name]} failed with exit status ${code}\n`);
    process.exit(1);
  }
}
