import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Every secret starts with this, so leaked keys are recognisable (and greppable by scanners). */
export const SECRET_PREFIX = "vsk_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 43 base-62 characters: 256 bits of entropy. */
const RANDOM_LENGTH = 43;
/** The check appended to keys issued since checks exist: about 35 bits. */
const CHECK_LENGTH = 6;
const CHECKED_PATTERN = new RegExp(`^${SECRET_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECK_LENGTH}}$`);
const LEGACY_PATTERN = new RegExp(`^${SECRET_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH}}$`);

/**
 * The shapes a secret can have: `checked` (issued with a check over its random part) or
 * `legacy` (issued before checks existed, which still work); null for anything else.
 */
export type SecretShape = "checked" | "legacy";

/** Uniform characters from the CSPRNG: bytes at or above the largest multiple of the alphabet size are skipped. */
function randomString(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** HMAC-SHA256 of the random part under the deployment's check key, as base-62 characters. */
function checkOf(random: string, checkKey: Buffer): string {
  const mac = createHmac("sha256", checkKey).update(random).digest();
  let out = "";
  for (let i = 0; i < CHECK_LENGTH; i++) out += ALPHABET[(mac[i] as number) % ALPHABET.length];
  return out;
}

/**
 * A new secret: the prefix, 43 random base-62 characters (256 bits) and a 6-character check
 * keyed by `checkKey`, the deployment's secret — so a forged key is refused without a
 * database lookup by anyone who does not hold that key.
 */
export function generateSecret(checkKey: Buffer): string {
  const random = randomString(RANDOM_LENGTH, ALPHABET);
  return SECRET_PREFIX + random + checkOf(random, checkKey);
}

export function secretShape(secret: string): SecretShape | null {
  if (CHECKED_PATTERN.test(secret)) return "checked";
  if (LEGACY_PATTERN.test(secret)) return "legacy";
  return null;
}

/** Whether a `checked` secret carries the check its random part has under `checkKey`. */
export function hasValidCheck(secret: string, checkKey: Buffer): boolean {
  const random = secret.slice(SECRET_PREFIX.length, SECRET_PREFIX.length + RANDOM_LENGTH);
  const check = Buffer.from(secret.slice(SECRET_PREFIX.length + RANDOM_LENGTH));
  const expected = Buffer.from(checkOf(random, checkKey));
  return check.length === expected.length && timingSafeEqual(check, expected);
}

/** A new key for checks: 32 random bytes. */
export function generateCheckKey(): Buffer {
  return randomBytes(32);
}

/** A new public key id, safe to log and to show in usage reports. */
export function generateKeyId(): string {
  return `key_${randomString(16, "0123456789abcdefghijklmnopqrstuvwxyz")}`;
}

/**
 * What the database stores instead of the secret: SHA-256, hex. Every request hashes its key,
 * so Bun's one-call hash is used: a third of the cost of `createHash(…).update(…).digest(…)`.
 */
export function hashSecret(secret: string): string {
  return Bun.SHA256.hash(secret, "hex");
}

/** The id under which a gateway subscriber's usage is kept. */
export function gatewayKeyId(subscriber: string): string {
  return `gw_${createHash("sha256").update(subscriber).digest("hex").slice(0, 24)}`;
}
