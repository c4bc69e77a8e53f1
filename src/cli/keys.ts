import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { checkNewKey, type KeyAdmin, keyAdmin, type NewKey } from "../accounts/admin.ts";
import { KeyStore } from "../accounts/key-store.ts";
import { createMeter } from "../accounts/meter.ts";
import { planCatalogue } from "../accounts/plans.ts";
import { type Config, parseConfig } from "../config.ts";
import { adminSocketPath } from "../kernel/admin-socket.ts";
import { systemClock } from "../kernel/clock.ts";
import { createLogger } from "../kernel/log.ts";
import { openStorage } from "../kernel/storage.ts";
import { WebhookSecrets } from "../webhooks/secrets.ts";

const USAGE = `usage:
  keys create --plan free|basic|pro [--name TEXT] [--quota N] [--rate N]
  keys revoke KEY_ID
  keys list
  keys usage KEY_ID
  keys webhook-secret KEY_ID [--rotate]`;

// Operators run these by hand against a system that is already up: an unreachable Postgres
// deserves a quick answer, with a short retry only to ride out a blip.
const DATABASE_RETRY_MS = 3_000;

type Command =
  | { name: "create"; key: NewKey }
  | { name: "revoke" | "usage"; keyId: string }
  | { name: "webhook-secret"; keyId: string; rotate: boolean }
  | { name: "list" };

/**
 * Reads and checks the whole command line before anything touches the database; throws a
 * message for the operator.
 */
function parseCommand(argv: string[]): Command {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      plan: { type: "string" },
      name: { type: "string" },
      quota: { type: "string" },
      rate: { type: "string" },
      rotate: { type: "boolean" },
    },
  });
  const [name, ...rest] = positionals;
  if (name === undefined) throw new Error("no command given");
  if (name === "create") {
    if (rest.length > 0) throw new Error(`create takes options only, not "${rest.join(" ")}"`);
    return { name, key: checkNewKey(values) };
  }
  if (name !== "list" && name !== "revoke" && name !== "usage" && name !== "webhook-secret") {
    throw new Error(`unknown command "${name}"`);
  }
  if (name === "webhook-secret") {
    const { rotate, ...others } = values;
    if (Object.keys(others).length > 0) throw new Error("webhook-secret takes --rotate only");
    const [keyId] = rest;
    if (!keyId || rest.length > 1) throw new Error("webhook-secret takes exactly one KEY_ID");
    return { name, keyId, rotate: rotate === true };
  }
  if (Object.keys(values).length > 0) throw new Error(`${name} takes no options`);
  if (name === "list") {
    if (rest.length > 0) throw new Error("list takes no arguments");
    return { name };
  }
  const [keyId] = rest;
  if (!keyId || rest.length > 1) throw new Error(`${name} takes exactly one KEY_ID`);
  return { name, keyId };
}

/** Runs one command against an admin: a result for stdout, or null when the key does not exist. */
async function run(command: Command, admin: KeyAdmin): Promise<unknown> {
  switch (command.name) {
    case "create":
      return admin.create(command.key);
    case "revoke":
      return admin.revoke(command.keyId);
    case "usage":
      return admin.usage(command.keyId);
    case "list":
      return admin.list();
    case "webhook-secret":
      return admin.webhookSecret(command.keyId, command.rotate);
  }
}

/** The running server's admin socket, as a KeyAdmin. */
function socketAdmin(socket: string): KeyAdmin {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`http://localhost${path}`, {
      method,
      unix: socket,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = (await response.json()) as { error?: string };
    if (response.status === 404 && path !== "/keys") return null;
    if (!response.ok) throw new Error(payload.error ?? `admin socket answered ${response.status}`);
    return payload;
  };
  return {
    create: (input) => call("POST", "/keys", input) as ReturnType<KeyAdmin["create"]>,
    revoke: (keyId) =>
      call("POST", `/keys/${encodeURIComponent(keyId)}/revoke`) as ReturnType<KeyAdmin["revoke"]>,
    list: () => call("GET", "/keys") as ReturnType<KeyAdmin["list"]>,
    usage: (keyId) =>
      call("GET", `/keys/${encodeURIComponent(keyId)}/usage`) as ReturnType<KeyAdmin["usage"]>,
    webhookSecret: (keyId, rotate) =>
      call(
        rotate ? "POST" : "GET",
        `/keys/${encodeURIComponent(keyId)}/webhook-secret${rotate ? "/rotate" : ""}`,
      ) as ReturnType<KeyAdmin["webhookSecret"]>,
  };
}

async function withDatabase<T>(config: Config, work: (admin: KeyAdmin) => Promise<T>): Promise<T> {
  const storage = await openStorage(
    config,
    createLogger("error", (line) => process.stderr.write(`${line}\n`)),
    "keys command",
    DATABASE_RETRY_MS,
  );
  try {
    const plans = planCatalogue(config.GATEWAY_RATE_LIMIT_PER_MINUTE);
    const meter = createMeter(storage.database, systemClock, { reservationTtlMs: 60_000 });
    return await work(
      keyAdmin({
        keys: new KeyStore(storage.database),
        meter,
        plans,
        clock: systemClock,
        webhookSecrets: new WebhookSecrets(storage.database),
      }),
    );
  } finally {
    await storage.close();
  }
}

/**
 * With DATABASE_URL the command talks to Postgres directly. On the embedded default it goes
 * through the running server's admin socket, since only one process can open PGlite; with
 * no server running it opens the data directory itself.
 */
async function execute(command: Command, config: Config): Promise<unknown> {
  if (config.DATABASE_URL) return withDatabase(config, (admin) => run(command, admin));
  const socket = adminSocketPath(config.DATA_DIR);
  if (existsSync(socket)) {
    try {
      return await run(command, socketAdmin(socket));
    } catch (error) {
      const code = (error as { code?: string }).code;
      // A socket nobody answers on is left by a server that is gone; the lock below tells
      // whether some other process holds the directory.
      const unreachable = code === "ECONNREFUSED" || code === "ENOENT" || code === "FailedToOpenSocket";
      if (!unreachable) throw error;
    }
  }
  return withDatabase(config, (admin) => run(command, admin));
}

/** Exit status 2: the command line or the configuration is wrong; 1: the command ran and failed. */
async function main(argv: string[]): Promise<number> {
  let command: Command;
  let config: Config;
  try {
    command = parseCommand(argv);
  } catch (error) {
    process.stderr.write(`keys: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    config = parseConfig(process.env);
  } catch (error) {
    process.stderr.write(`keys: ${(error as Error).message}\n`);
    return 2;
  }
  try {
    const result = await execute(command, config);
    if (result === null) {
      process.stderr.write(`keys ${command.name}: no key ${"keyId" in command ? command.keyId : ""}\n`);
      return 1;
    }
    // A secret is shown on one line, to be copied whole.
    const oneLine = command.name === "create" || command.name === "webhook-secret";
    process.stdout.write(`${JSON.stringify(result, null, oneLine ? undefined : 2)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`keys ${command.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
