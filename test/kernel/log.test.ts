import { expect, test } from "bun:test";
import { join } from "node:path";
import { createLogger } from "../../src/kernel/log.ts";

const LOG_MODULE = join(import.meta.dir, "../../src/kernel/log.ts");

/** Runs `body` in a new process with `log` (info level, to stdout) in scope; returns its stdout lines. */
async function linesOf(body: string): Promise<string[]> {
  const script = `import { createLogger } from ${JSON.stringify(LOG_MODULE)};\nconst log = createLogger("info");\n${body}`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const text = await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
  return text.split("\n").filter((line) => line !== "");
}

test("every line logged before process.exit is written, in order, one JSON object each", async () => {
  const lines = await linesOf(`
    for (let i = 0; i < 50000; i++) log.info("request", { i, pad: "x".repeat(100) });
    process.exit(0);`);
  expect(lines).toHaveLength(50000);
  expect(lines.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual([...Array(50000).keys()]);
});

test("lines of one turn are written together at its end; a warning at once", async () => {
  const lines = await linesOf(`
    const fs = require("node:fs");
    log.info("first");
    fs.writeSync(1, "marker\\n");
    log.warn("second");
    fs.writeSync(1, "marker\\n");
    log.info("third");`);
  expect(
    lines.map((line) => (line === "marker" ? line : (JSON.parse(line) as { event: string }).event)),
  ).toEqual(["marker", "first", "second", "marker", "third"]);
});

test("a line is one JSON object: time, level, event, then the fields as given", () => {
  const lines: string[] = [];
  const log = createLogger("info", (line) => lines.push(line));
  log.info("plain");
  log.info("empty", {});
  log.warn("fields", { status: 200, nested: { a: [1, 'x"y'] }, none: undefined });
  log.debug("below the level");
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const entry of parsed) expect(new Date(entry.time as string).toISOString()).toBe(entry.time as string);
  expect(parsed.map(({ time: _, ...rest }) => rest)).toEqual([
    { level: "info", event: "plain" },
    { level: "info", event: "empty" },
    { level: "warn", event: "fields", status: 200, nested: { a: [1, 'x"y'] } },
  ]);
});

test("a stdout whose reader went away costs the lines, not the process", async () => {
  const script = `import { createLogger } from ${JSON.stringify(LOG_MODULE)};
const log = createLogger("info");
log.info("first");
await Bun.sleep(500);
for (let i = 0; i < 1000; i++) { log.info("after", { i }); await Bun.sleep(0); }
log.warn("last");
process.stderr.write("alive\\n");`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const reader = child.stdout.getReader();
  await reader.read();
  await reader.cancel();
  expect(await child.exited).toBe(0);
  const stderr = await new Response(child.stderr).text();
  // Told once, however many turns failed after it.
  expect(stderr.split("log lines cannot be written to stdout").length - 1).toBe(1);
  expect(stderr).toContain("alive");
});
