import { createHash, randomBytes } from "node:crypto";

/** Every secret starts with this, so leaked keys are recognisable (and greppable by scanners). */
export const SECRET_PREFIX = "vsk_";
const SECRET_BODY_LENGTH = 43;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_PATTERN = new RegExp(`^${SECRET_PREFIX}[0-9A-Za-z]{${SECRET_BODY_LENGTH}}$`);

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

/** A new secret: the prefix and 43 base-62 characters (256 bits of entropy). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomString(SECRET_BODY_LENGTH, ALPHABET);
}

/** A new public key id, safe to log and to show in usage reports. */
export function generateKeyId(): string {
  return `key_${randomString(16, "0123456789abcdefghijklmnopqrstuvwxyz")}`;
}

export function isWellFormedSecret(secret: string): boolean {
  return SECRET_PATTERN.test(secret);
}

/** What the database stores instead of the secret. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** The id under which a gateway subscriber's usage is kept. */
export function gatewayKeyId(subscriber: string): string {
  return `gw_${createHash("sha256").update(subscriber).digest("hex").slice(0, 24)}`;
}
