import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkContract, type Harness, startHarness } from "../support/harness.ts";

let harness: Harness;
let key: string;

beforeAll(async () => {
  harness = await startHarness();
  key = (await harness.createKey("pro")).secret;
});
afterAll(() => harness.close());

async function send(
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
) {
  return harness.request("POST", "/validate", { key, rawBody: body, headers });
}

describe("POST /validate body rules", () => {
  test.each([
    ["not JSON", "{iban: DE89}", "the body is not valid JSON"],
    ["empty", "", "a JSON body is required"],
    ["an array", "[1, 2]", "the body must be a JSON object with a `vat` and/or an `iban` string"],
    [
      "a string",
      '"DE89370400440532013000"',
      "the body must be a JSON object with a `vat` and/or an `iban` string",
    ],
    ["null", "null", "the body must be a JSON object with a `vat` and/or an `iban` string"],
    ["an empty object", "{}", "send `vat`, `iban`, or both, as strings"],
    ["only unknown fields", '{"account": "DE89"}', "send `vat`, `iban`, or both, as strings"],
    ["a number iban", '{"iban": 5}', "`iban` must be a string"],
    ["a null vat", '{"vat": null}', "`vat` must be a string"],
    ["an object iban", '{"iban": {"value": "DE89"}}', "`iban` must be a string"],
    [
      "a vat over 40 characters",
      JSON.stringify({ vat: `DE${"1".repeat(39)}` }),
      "`vat` must be at most 40 characters, got 41",
    ],
    [
      "an iban over 60 characters",
      JSON.stringify({ iban: "D".repeat(61) }),
      "`iban` must be at most 60 characters, got 61",
    ],
  ])("%s → 400 invalid_request naming the rule", async (_, body, message) => {
    const response = await send(body, { "content-type": "application/json" });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: { code: "invalid_request", message } });
  });

  test("a field at exactly its bound is accepted", async () => {
    const response = await harness.validate(key, { vat: `DE${"1".repeat(38)}`, iban: "D".repeat(60) });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { code: "invalid_format" } });
  });

  test("the body is read as JSON whatever the Content-Type (curl -d sends form encoding)", async () => {
    const response = await send('{"iban":"DE89370400440532013000"}', {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(response.status).toBe(200);
  });

  test("invalid UTF-8 is refused", async () => {
    const response = await send(new Uint8Array([0x7b, 0x22, 0x69, 0xff, 0xfe, 0x22, 0x7d]));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: { code: "invalid_request", message: "the body is not valid UTF-8" },
    });
  });

  test("a declared body over 16 KiB is refused with 413 before it is read", async () => {
    const response = await send(JSON.stringify({ iban: "DE89370400440532013000", pad: "x".repeat(20_000) }));
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ error: { code: "invalid_request" } });
  });

  test("a chunked body is cut off as soon as it crosses the bound", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 1000) controller.close();
        else controller.enqueue(new TextEncoder().encode(" ".repeat(1024)));
      },
    });
    const response = await send(stream);
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(40);
  });
});

describe("routing errors", () => {
  test("an unknown route is 404 not_found with the error body", async () => {
    const response = await harness.app.handle(new Request("http://localhost/nope"));
    expect(response.status).toBe(404);
    expect(await checkContract("GET /nope", response)).toMatchObject({ error: { code: "not_found" } });
  });

  test.each([
    ["GET", "/validate", "POST"],
    ["PUT", "/validate", "POST"],
    ["DELETE", "/usage", "GET"],
    ["POST", "/health", "GET"],
  ])("%s %s is 405 method_not_allowed with Allow: %s", async (method, path, allow) => {
    const response = await harness.app.handle(new Request(`http://localhost${path}`, { method }));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    expect(await checkContract(`${method} ${path}`, response)).toMatchObject({
      error: { code: "method_not_allowed" },
    });
  });

  test("an unexpected exception is 500 internal_error without a stack trace, and is logged", async () => {
    const broken = harness.services.iban;
    const original = broken.validate;
    broken.validate = () => {
      throw new Error("engine exploded at /secret/path.ts:12");
    };
    try {
      const response = await harness.validate(key, { iban: "DE89370400440532013000" });
      expect(response.status).toBe(500);
      expect(response.body).toEqual({
        error: { code: "internal_error", message: "an unexpected error occurred; it has been logged" },
      });
      expect(JSON.stringify(response.body)).not.toContain("secret");
      expect(harness.logs.some((line) => line.event === "unhandled_error")).toBe(true);
    } finally {
      broken.validate = original;
    }
  });

  test("a well-formed X-Request-Id from a proxy is kept; anything else is replaced", async () => {
    const kept = await harness.request("GET", "/health", { headers: { "x-request-id": "lb-1234.abc" } });
    expect(kept.headers.get("x-request-id")).toBe("lb-1234.abc");
    const replaced = await harness.request("GET", "/health", { headers: { "x-request-id": "<script>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
