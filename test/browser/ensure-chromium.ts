/**
 * Debian's Chromium for the browser tests, installed with apt-get when the machine lacks it.
 * The tests need a real browser and CI machines start without one; a failed install is an
 * error carrying apt-get's output, never a reason to skip. Run on its own with
 * `bun test/browser/ensure-chromium.ts`.
 */
import { existsSync } from "node:fs";

export const CHROMIUM = "/usr/bin/chromium";
/** Everything apt-get does here ends within this, inside the browser tests' 300 s set-up. */
export const INSTALL_BUDGET_MS = 280_000;
const OUTPUT_TAIL_CHARS = 4000;

/** How one apt-get command went: `failure` is null when it succeeded. */
type AptRun = { command: string; failure: string | null; output: string };

async function aptGet(args: string[], deadline: number): Promise<AptRun> {
  const command = `apt-get ${args.join(" ")}`;
  let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    child = Bun.spawn(["apt-get", ...args], {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: Math.max(1, deadline - Date.now()),
    });
  } catch (error) {
    return { command, failure: "could not be started", output: String(error) };
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const failure = child.signalCode
    ? `was stopped by ${child.signalCode} (over the ${INSTALL_BUDGET_MS / 1000} s budget)`
    : code === 0
      ? null
      : `exited with ${code}`;
  return { command, failure, output: `${stdout}${stderr}`.slice(-OUTPUT_TAIL_CHARS) };
}

/**
 * The path of Debian's Chromium, after `apt-get install -y chromium` if it is missing (with
 * `apt-get update` and a second attempt when the first fails, as stale package lists make it).
 * Throws with the reason when it cannot be installed: not root, no network, no such package.
 */
export async function ensureChromium(): Promise<string> {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM} is missing and installing it needs root: run apt-get install -y chromium`);
  }
  const deadline = Date.now() + INSTALL_BUDGET_MS;
  // Waits for another apt-get holding the package lock instead of failing at once.
  const install = ["-o", "DPkg::Lock::Timeout=120", "install", "-y", "chromium"];
  let run = await aptGet(install, deadline);
  if (run.failure) {
    const update = await aptGet(["update"], deadline);
    run = update.failure ? update : await aptGet(install, deadline);
  }
  if (run.failure) {
    throw new Error(
      `Chromium is missing and could not be installed: \`${run.command}\` ${run.failure}\n${run.output}`,
    );
  }
  if (!existsSync(CHROMIUM)) throw new Error(`\`${run.command}\` succeeded but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}

if (import.meta.main) console.log(await ensureChromium());
