import { describe, expect, test } from "bun:test";
import {
  canonicalJson,
  decide,
  fingerprintOf,
  idempotencyKeyOf,
  isKept,
  type KeptRequest,
  keptHeaders,
  refusal,
} from "../../src/idempotency/decide.ts";
import { ApiError } from "../../src/kernel/errors.ts";

/** The pure core of Idempotency-Key: the key's shape, the fingerprint, and the decision. */

const headers = (value?: string) => new Headers(value === undefined ? {} : { "idempotency-key": value });

describe("the key", () => {
  test("absent is null; 1 to 255 printable ASCII characters are a key", () => {
    expect(idempotencyKeyOf(headers())).toBeNull();
    expect(idempotencyKeyOf(headers("a"))).toBe("a");
    expect(idempotencyKeyOf(headers("x".repeat(255)))).toBe("x".repeat(255));
    expect(idempotencyKeyOf(headers("a b~!"))).toBe("a b~!");
  });

  test.each([
    ["", "empty"],
    ["x".repeat(256), "too long"],
    ["a\tb", "a tab"],
    ["caf\u00e9", "outside ASCII"],
  ])("%j (%s) is refused with invalid_request", (value) => {
    expect(() => idempotencyKeyOf(headers(value))).toThrow(ApiError);
    try {
      idempotencyKeyOf(headers(value));
    } catch (error) {
      expect((error as ApiError).code).toBe("invalid_request");
    }
  });
});

describe("the fingerprint", () => {
  test("canonical JSON sorts every object's keys, keeps array order, drops undefined fields", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":2,"f":1}]},"b":1}',
    );
    expect(canonicalJson({ a: undefined, b: "x" })).toBe('{"b":"x"}');
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson([3, 1, 2])).toBe("[3,1,2]");
  });

  test("the same data in another order is the same request; another value, path or method is not", () => {
    const one = fingerprintOf("POST", "/validate", { vat: "NL1", iban: "DE2" });
    expect(fingerprintOf("POST", "/validate", { iban: "DE2", vat: "NL1" })).toBe(one);
    expect(fingerprintOf("POST", "/validate", { vat: "NL1", iban: "DE3" })).not.toBe(one);
    expect(fingerprintOf("POST", "/validate", { vat: "NL1", iban: "DE2", extra: 1 })).not.toBe(one);
    expect(fingerprintOf("POST", "/batches", { vat: "NL1", iban: "DE2" })).not.toBe(one);
    expect(fingerprintOf("PUT", "/validate", { vat: "NL1", iban: "DE2" })).not.toBe(one);
  });

  test("a body nested deeper than the engine serializes is refused with invalid_request, never a crash", () => {
    const nested = (depth: number) =>
      JSON.parse(`{"iban":"x","extra":${"[".repeat(depth)}${"]".repeat(depth)}}`) as unknown;
    const refused = (() => {
      try {
        return fingerprintOf("POST", "/validate", nested(200_000));
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: "invalid_request", status: 400 });
    // As deep as the default 16 KiB body allows: compared like any other.
    expect(fingerprintOf("POST", "/validate", nested(8000))).toMatch(/^[\w-]{43}$/);
  });
});

describe("the decision", () => {
  const kept = (overrides: Partial<KeptRequest> = {}): KeptRequest => ({
    fingerprint: "f",
    leaseToken: "t",
    answer: null,
    leaseExpired: false,
    expired: false,
    ...overrides,
  });
  const answer = { status: 200, headers: {}, body: "{}" };

  test.each([
    ["nothing kept", null, "f", { kind: "run" }],
    ["the same request, answered", kept({ answer, leaseToken: null }), "f", { kind: "replay", answer }],
    ["the same request, running", kept(), "f", { kind: "in_progress" }],
    [
      "the same request, its lease lapsed",
      kept({ leaseExpired: true }),
      "f",
      { kind: "take_over", leaseToken: "t" },
    ],
    ["another request, answered", kept({ answer }), "g", { kind: "reused" }],
    ["another request, running", kept(), "g", { kind: "reused" }],
    ["another request, its lease lapsed", kept({ leaseExpired: true }), "g", { kind: "reused" }],
    ["anything expired", kept({ answer, expired: true }), "g", { kind: "take_over", leaseToken: "t" }],
  ] as const)("%s", (_, row, fingerprint, decision) => {
    expect(decide(row, fingerprint)).toEqual(decision);
  });

  test("the refusals: 422 reused, 409 in progress with Retry-After 1; the others run or replay", () => {
    expect(refusal({ kind: "reused" })).toMatchObject({ code: "idempotency_key_reused", status: 422 });
    expect(refusal({ kind: "in_progress" })).toMatchObject({
      code: "idempotency_key_in_progress",
      status: 409,
      retryAfter: 1,
    });
    expect(refusal({ kind: "run" })).toBeNull();
  });

  test("kept: answers and refusals of the input; not 429 and 5xx", () => {
    for (const status of [200, 202, 400, 403, 404]) expect(isKept(status)).toBe(true);
    for (const status of [429, 500, 502, 503, 504]) expect(isKept(status)).toBe(false);
  });

  test("the headers kept with an answer are its own; the per-minute and gateway billing ones are not", () => {
    expect(
      keptHeaders({
        "content-type": "application/json",
        location: "/batches/bat_1",
        "x-request-id": "r",
        "x-quota-limit": 10,
        "x-quota-remaining": "9",
        "x-quota-reset": "2026-04-01T00:00:00.000Z",
        "x-ratelimit-limit": "60",
        "x-ratelimit-remaining": "59",
        "x-gateway-billing": "Validations=1",
        "retry-after": "1",
      }),
    ).toEqual({
      "content-type": "application/json",
      location: "/batches/bat_1",
      "x-request-id": "r",
      "x-quota-limit": "10",
      "x-quota-remaining": "9",
      "x-quota-reset": "2026-04-01T00:00:00.000Z",
    });
  });
});
