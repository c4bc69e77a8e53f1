import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Harness, startHarness } from "../support/harness.ts";
import { ROOT } from "../support/service.ts";

let harness: Harness;
const scratch = mkdtempSync(join(tmpdir(), "openapi-lint-"));
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
  rmSync(scratch, { recursive: true, force: true });
});

test("the document the app serves passes Redocly's recommended rules: no error, no warning", async () => {
  const response = await harness.app.handle(new Request("http://localhost/swagger/json"));
  const file = join(scratch, "openapi.json");
  writeFileSync(file, await response.text());
  const lint = Bun.spawn([join(ROOT, "node_modules/.bin/redocly"), "lint", "--format=json", file], {
    cwd: ROOT,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [output, errors, code] = await Promise.all([
    new Response(lint.stdout).text(),
    new Response(lint.stderr).text(),
    lint.exited,
  ]);
  const report = JSON.parse(output) as { totals: Record<string, number>; problems: unknown[] };
  expect({ code, problems: report.problems, totals: report.totals }).toEqual({
    code: 0,
    problems: [],
    totals: expect.objectContaining({ errors: 0, warnings: 0 }),
  });
  expect(errors).not.toContain("Error");
}, 60_000);
