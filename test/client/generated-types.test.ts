import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { TYPES_FILE, typesOf } from "../../client/scripts/generate.ts";
import { type Harness, startHarness } from "../support/harness.ts";

/** The client's committed types are what openapi-typescript makes of the app's /swagger/json. */

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

test("client/src/openapi.ts matches the app's OpenAPI document (else: npm run client:generate)", async () => {
  const response = await harness.app.handle(new Request("http://localhost/swagger/json"));
  expect(response.status).toBe(200);
  const generated = await typesOf((await response.json()) as object);
  expect(readFileSync(TYPES_FILE, "utf8")).toBe(generated);
});
