/**
 * Checks the keys command tests make on either database: the server and the commands must
 * behave the same whether the commands reach the data through the admin socket (embedded)
 * or straight from Postgres.
 */
import { expect } from "bun:test";
import type { CreatedKey } from "../../src/accounts/admin.ts";
import {
  awayFromMinuteEdge,
  type RunningServer,
  type Sandbox,
  singleJsonLine,
  validateIban,
} from "../support/service.ts";

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

/** `keys revoke`, `usage` and `webhook-secret` of a key that does not exist: exit 1, why on stderr, nothing on stdout. */
export async function expectUnknownKeyRefused(box: Sandbox, env: Record<string, string>): Promise<void> {
  for (const command of ["revoke", "usage", "webhook-secret"]) {
    const exit = await box.keys([command, "key_doesnotexist0000"], env);
    expect(exit).toMatchObject({ code: 1, stdout: "" });
    expect(exit.stderr).toBe(`keys ${command}: no key key_doesnotexist0000\n`);
  }
}

/**
 * `keys webhook-secret KEY_ID` shows the key's signing secret (created on first use) on one
 * line, the same each time; `--rotate` replaces it.
 */
export async function expectWebhookSecretShown(
  box: Sandbox,
  env: Record<string, string>,
  keyId: string,
): Promise<void> {
  const shown = async (args: string[]) =>
    singleJsonLine(await box.keysOk(["webhook-secret", keyId, ...args], env)) as {
      key_id: string;
      webhook_secret: string;
    };
  const first = await shown([]);
  expect(first).toEqual({
    key_id: keyId,
    webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
  });
  expect(await shown([])).toEqual(first);
  const rotated = await shown(["--rotate"]);
  expect(rotated.webhook_secret).not.toBe(first.webhook_secret);
  expect(await shown([])).toEqual(rotated);
}
