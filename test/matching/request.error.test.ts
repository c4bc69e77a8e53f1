import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/kernel/errors.ts";
import { readMatchRequest } from "../../src/matching/request.ts";

const refusal = (value: unknown, where?: string) => {
  try {
    readMatchRequest(value, where);
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("not refused");
};

describe("a match request is refused, naming what is wrong", () => {
  test("not an object", () => {
    for (const value of [null, "GitHub", 1, ["GitHub"], true]) {
      expect(refusal(value)).toEqual({
        code: "invalid_request",
        message: "`match` must be an object with any of name, street, postcode, city, company_type",
      });
    }
  });

  test("a field it does not know, even one from the prototype", () => {
    expect(refusal({ nmae: "GitHub" }).message).toBe(
      "`match` has no field `nmae`; it takes name, street, postcode, city, company_type",
    );
    expect(refusal(JSON.parse('{"__proto__": {"name": "x"}}')).message).toContain("no field `__proto__`");
    expect(refusal(JSON.parse('{"toString": "x"}')).message).toContain("no field `toString`");
  });

  test("a value that is not a string, too long, or holds NUL", () => {
    expect(refusal({ name: 42 }).message).toBe("`match.name` must be a string");
    expect(refusal({ city: null }).message).toBe("`match.city` must be a string");
    expect(refusal({ street: "x".repeat(201) }).message).toBe(
      "`match.street` must be at most 200 characters, got 201",
    );
    expect(refusal({ name: "Git\u0000Hub" }).message).toBe("`match.name` must not contain a NUL character");
    expect(refusal(JSON.parse('{"city": "Amsterdam\\ud800"}')).message).toBe(
      "`match.city` must not contain a lone UTF-16 surrogate (\\ud800–\\udfff)",
    );
  });

  test("nothing left to match: empty, or only blank values", () => {
    const message = "`match` needs at least one of name, street, postcode, city, company_type, not blank";
    expect(refusal({}).message).toBe(message);
    expect(refusal({ name: "  ", city: "" }).message).toBe(message);
  });

  test("in a batch, the item is named", () => {
    expect(refusal({ name: 1 }, "item 3 (row 5)").message).toBe(
      "item 3 (row 5): `match.name` must be a string",
    );
  });
});

describe("an accepted match request", () => {
  test("keeps the values as sent, 200 characters at most, and drops the blank ones", () => {
    const long = "x".repeat(200);
    expect(readMatchRequest({ name: " GitHub ", street: "", city: long })).toEqual({
      name: " GitHub ",
      city: long,
    });
  });
});
