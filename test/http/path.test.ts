import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { pathOf } from "../../src/http/path.ts";
import { type Harness, startHarness } from "../support/harness.ts";

describe("pathOf", () => {
  test.each([
    ["http://localhost/validate", "/validate"],
    ["http://localhost/validate/", "/validate"],
    ["http://localhost/validate?x=1", "/validate"],
    ["http://localhost/validate/?x=1#y", "/validate"],
    ["http://localhost/", "/"],
    ["http://localhost", "/"],
    ["http://a b c/validate", "/validate"],
    ["http://[::1/x", "/x"],
  ])("%s → %s", (url, path) => {
    expect(pathOf(url)).toBe(path);
  });
});

describe("a trailing slash", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.close());

  test("is the same route, behind the same authentication", async () => {
    const key = await harness.createKey("pro");
    const noKey = await harness.app.handle(
      new Request("http://localhost/validate/", { method: "POST", body: "{}" }),
    );
    expect(noKey.status).toBe(401);
    const withKey = await harness.request("POST", "/validate/", {
      key: key.secret,
      body: { iban: "DE89370400440532013000" },
    });
    expect(withKey.status).toBe(200);
    const usage = await harness.request("GET", "/usage/", { key: key.secret });
    expect(usage.status).toBe(200);
    expect(harness.logs.some((line) => line.event === "unhandled_error")).toBe(false);
  });
});
