import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, sandbox, serviceEnv } from "../support/service.ts";

// Real processes, and a first start of embedded Postgres, take longer than bun's 5 s default.
setDefaultTimeout(30_000);

const box = sandbox();
afterAll(() => box.cleanup());

describe("a command line that cannot run: exit 2, the reason and the usage on stderr", () => {
  test.each([
    ["no command", [], /no command given/],
    ["an unknown command", ["frobnicate"], /unknown command "frobnicate"/],
    ["create without --plan", ["create"], /--plan must be one of free, basic, pro/],
    ["an unknown plan", ["create", "--plan", "gold"], /--plan must be one of free, basic, pro/],
    ["--plan without its value", ["create", "--plan"], /--plan/],
    ["a negative quota", ["create", "--plan", "free", "--quota", "-1"], /--quota/],
    [
      "a negative quota, attached",
      ["create", "--plan", "free", "--quota=-1"],
      /--quota must be a whole number/,
    ],
    [
      "a quota that is no number",
      ["create", "--plan", "free", "--quota", "abc"],
      /--quota must be a whole number/,
    ],
    ["a fractional quota", ["create", "--plan", "free", "--quota", "1.5"], /--quota must be a whole number/],
    [
      "a rate of zero",
      ["create", "--plan", "free", "--rate", "0"],
      /--rate must be a whole number of at least 1/,
    ],
    ["a name of more than 200 characters", ["create", "--plan", "free", "--name", "x".repeat(201)], /--name/],
    ["an unknown option", ["create", "--plan", "free", "--bogus"], /Unknown option '--bogus'/],
    ["a stray argument to create", ["create", "--plan", "free", "extra"], /create takes options only/],
    ["usage without a key id", ["usage"], /usage takes exactly one KEY_ID/],
    ["revoke without a key id", ["revoke"], /revoke takes exactly one KEY_ID/],
    ["revoke with two key ids", ["revoke", "key_a", "key_b"], /revoke takes exactly one KEY_ID/],
    ["list with an option", ["list", "--plan", "free"], /list takes no options/],
    ["webhook-secret without a key id", ["webhook-secret"], /webhook-secret takes exactly one KEY_ID/],
    [
      "webhook-secret with another option",
      ["webhook-secret", "key_a", "--plan", "free"],
      /webhook-secret takes --rotate only/,
    ],
    ["--rotate on another command", ["revoke", "key_a", "--rotate"], /revoke takes no options/],
  ] as const)("%s", async (_, args, reason) => {
    // The data directory stays empty: a refused command line never touches the database.
    const dataDir = box.tempDir();
    const exit = await box.keys([...args], serviceEnv({ DATA_DIR: dataDir }));
    expect(exit.code).toBe(2);
    expect(exit.stdout).toBe("");
    expect(exit.stderr).toMatch(/^keys: /);
    expect(exit.stderr).toMatch(reason);
    expect(exit.stderr).toContain("\nusage:\n  keys create --plan free|basic|pro");
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe("a configuration that cannot work", () => {
  test.each([
    ["KEY_CACHE_TTL_MS", "abc"],
    ["DATABASE_URL", "mysql://root@127.0.0.1/keys"],
    ["DATABASE_POOL_SIZE", "0"],
  ])("%s=%s: exit 2, the variable named on stderr", async (name, value) => {
    const dataDir = box.tempDir();
    const exit = await box.keys(["list"], serviceEnv({ DATA_DIR: dataDir, [name]: value }));
    expect(exit).toMatchObject({ code: 2, stdout: "" });
    expect(exit.stderr).toStartWith("keys: invalid configuration:\n");
    // URLs can carry passwords: their values are never echoed, the others are.
    if (name.endsWith("_URL")) {
      expect(exit.stderr).toContain(`${name}:`);
      expect(exit.stderr).not.toContain(value);
    } else {
      expect(exit.stderr).toContain(`${name}=${JSON.stringify(value)}`);
    }
    expect(readdirSync(dataDir)).toEqual([]);
  });

  test("the server refuses it the same way", async () => {
    const exit = await box.run([BUN, "src/index.ts"], serviceEnv({ DATA_DIR: box.tempDir(), PORT: "abc" }));
    expect(exit).toMatchObject({ code: 2, stdout: "" });
    expect(exit.stderr).toContain('PORT="abc"');
  });
});

describe("a database that cannot be reached: exit 1, the reason on stderr, nothing on stdout", () => {
  test("DATABASE_URL on a closed port gives up within a few seconds", async () => {
    const exit = await box.keys(
      ["create", "--plan", "free"],
      serviceEnv({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/keys", DATA_DIR: box.tempDir() }),
    );
    expect(exit).toMatchObject({ code: 1, stdout: "" });
    expect(exit.stderr).toStartWith("keys create: Postgres is unreachable after");
    // A short retry rides out a blip; an operator waiting at the prompt gets an answer soon.
    expect(exit.ms).toBeLessThan(6000);
  });

  test("a DATA_DIR that cannot be created", async () => {
    const file = join(box.tempDir(), "a-file");
    writeFileSync(file, "not a directory");
    const exit = await box.keys(["list"], serviceEnv({ DATA_DIR: join(file, "data") }));
    expect(exit).toMatchObject({ code: 1, stdout: "" });
    expect(exit.stderr).toStartWith("keys list: ");
    expect(exit.stderr).toContain(join(file, "data"));
  });
});
