import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { freePort } from "../support/ports.ts";
import { BUN, sandbox, serviceEnv } from "../support/service.ts";

setDefaultTimeout(30_000);

const box = sandbox();
afterAll(() => box.cleanup());

/** A Postgres URL on a port where nothing listens: every connection attempt is refused. */
const unreachablePostgres = () => `postgres://postgres@127.0.0.1:${freePort()}/test`;

const events = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => (JSON.parse(line) as { event: string }).event);

describe("start-up against a Postgres that does not answer", () => {
  test("retried with backoff within STARTUP_TIMEOUT_MS, then exit 1 with the reason", async () => {
    const env = serviceEnv({ DATABASE_URL: unreachablePostgres(), STARTUP_TIMEOUT_MS: "3000" });
    const exit = await box.run([BUN, "src/index.ts"], env);
    expect(exit.code).toBe(1);
    const logged = events(`${exit.stdout}${exit.stderr}`);
    // Retries after 0.25, 0.5 and 1 s fit in the budget; the next (2 s) would not.
    expect(logged.filter((event) => event === "database_unreachable").length).toBeGreaterThanOrEqual(3);
    expect(logged.at(-1)).toBe("startup_failed");
    expect(exit.ms).toBeLessThan(3000 + 2000);
  });

  test("a SIGTERM while it waits ends it at once, with exit 0", async () => {
    const env = serviceEnv({ DATABASE_URL: unreachablePostgres(), STARTUP_TIMEOUT_MS: "20000" });
    const child = Bun.spawn([BUN, "src/index.ts"], { env, stdout: "pipe", stderr: "pipe" });
    await Bun.sleep(1500);
    const signalled = performance.now();
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(2000);
    expect(events(await new Response(child.stdout).text())).toContain("stopped_during_startup");
  });
});
