import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  generateCheckKey,
  generateSecret,
  hashSecret,
  hasValidCheck,
  secretShape,
} from "../../src/accounts/keys.ts";

test("the stored hash of a secret is its SHA-256 in hex, as every earlier version stored it", () => {
  // The SHA-256 test vector of "abc" (FIPS 180-2), then secrets of both shapes against node:crypto.
  expect(hashSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const checkKey = generateCheckKey();
  for (let i = 0; i < 50; i++) {
    const secret = generateSecret(checkKey);
    expect(secretShape(secret)).toBe("checked");
    expect(hasValidCheck(secret, checkKey)).toBe(true);
    expect(hashSecret(secret)).toBe(createHash("sha256").update(secret).digest("hex"));
  }
  expect(hashSecret("vsk_ünïcödé")).toBe(createHash("sha256").update("vsk_ünïcödé").digest("hex"));
});
