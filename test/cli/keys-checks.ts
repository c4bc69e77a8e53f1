/**
 * Checks the keys command tests make on either database: the server and the commands must
 * behave the same whether the commands reach the data through the admin socket (embedded)
 * or straight from Postgres.
 */
import { expect } from "bun:test";
import type { CreatedKey } from "../../src/accounts/admin.ts";
import { awayFromMinuteEdge, type RunningServer, type Sandbox, validateIban } from "../support/service.ts";

/**
 * The server enforces what `--rate` and `--quota` set: `rateOfTwo` (created with `--rate 2`)
 * is refused on its third request within a minute, `quotaOfOne` (`--quota 1`) on its second.
 */
export async function expectLimitsEnforced(
  server: RunningServer,
  rateOfTwo: CreatedKey,
  quotaOfOne: CreatedKey,
): Promise<void> {
  await awayFromMinuteEdge();
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await validateIban(server, rateOfTwo.api_key));
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
  expect(answers[2]?.body.error?.code).toBe("rate_limited");

  expect((await validateIban(server, quotaOfOne.api_key)).status).toBe(200);
  const over = await validateIban(server, quotaOfOne.api_key);
  expect(over.status).toBe(429);
  expect(over.body.error?.code).toBe("quota_exceeded");
}

/** `keys revoke` and `keys usage` of a key that does not exist: exit 1, why on stderr, nothing on stdout. */
export async function expectUnknownKeyRefused(box: Sandbox, env: Record<string, string>): Promise<void> {
  for (const command of ["revoke", "usage"]) {
    const exit = await box.keys([command, "key_doesnotexist0000"], env);
    expect(exit).toMatchObject({ code: 1, stdout: "" });
    expect(exit.stderr).toBe(`keys ${command}: no key key_doesnotexist0000\n`);
  }
}
