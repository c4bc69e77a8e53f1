import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkContract, type Harness, startHarness } from "../support/harness.ts";

/** The Swagger UI page at /swagger: self-contained, under a strict content-security policy. */

const CONTENT_TYPES: Record<string, RegExp> = {
  js: /^text\/javascript\b/,
  css: /^text\/css\b/,
  png: /^image\/png$/,
};
const ABSOLUTE_URL = /\bhttps?:\/\//i;

let harness: Harness;
let page: Response;
let html: string;

const get = (path: string) => harness.app.handle(new Request(`http://localhost${path}`));
const referencedBy = (text: string) =>
  [...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? "");
const directives = (policy: string) =>
  Object.fromEntries(
    policy.split(";").map((directive) => {
      const [name = "", ...values] = directive.trim().split(/\s+/);
      return [name, values];
    }),
  );

beforeAll(async () => {
  harness = await startHarness();
  page = await get("/swagger");
  html = await page.text();
});
afterAll(() => harness.close());

describe("GET /swagger", () => {
  test("is an HTML page under a content-security policy that allows scripts from this origin only", () => {
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type") ?? "").toStartWith("text/html");
    expect(html).toContain('<div id="swagger-ui">');
    const policy = directives(page.headers.get("content-security-policy") ?? "");
    expect(policy["default-src"]).toEqual(["'none'"]);
    expect(policy["script-src"]).toEqual(["'self'"]);
    expect(policy["connect-src"]).toEqual(["'self'"]);
    expect(policy["frame-ancestors"]).toEqual(["'none'"]);
  });

  test("has no inline script, and no URL to another host", () => {
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(ABSOLUTE_URL);
    expect(html).not.toMatch(/src="\/\/|href="\/\//);
  });

  test("every script, stylesheet and icon it references is served by the app with its content type", async () => {
    const references = referencedBy(html);
    expect(references.length).toBeGreaterThanOrEqual(4);
    for (const reference of references) {
      expect(reference).toStartWith("/swagger/assets/");
      const response = await get(reference);
      const extension = reference.slice(reference.lastIndexOf(".") + 1);
      expect({ reference, status: response.status }).toEqual({ reference, status: 200 });
      expect({ reference, type: response.headers.get("content-type") }).toEqual({
        reference,
        type: expect.stringMatching(CONTENT_TYPES[extension] ?? /^$/),
      });
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  test("the start-up script points Swagger UI at the document on this origin", async () => {
    const script = await (await get("/swagger/assets/init.js")).text();
    expect(script).not.toMatch(ABSOLUTE_URL);
    expect(script).toContain("validatorUrl: null");
    const url = /url:\s*"([^"]+)"/.exec(script)?.[1] ?? "";
    expect(url).toStartWith("/");
    const document = await get(url);
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi?: string }).openapi).toStartWith("3.");
  });
});

describe("unknown documentation assets", () => {
  test.each([
    "nope.js",
    "swagger-ui-bundle.js.map",
    "index.html",
    "..%2Fpackage.json",
    "..%2F..%2F..%2Fpackage.json",
    "%2e%2e%2fswagger-ui.css",
  ])("/swagger/assets/%s → 404 not_found with the error body", async (name) => {
    const response = await get(`/swagger/assets/${name}`);
    expect(response.status).toBe(404);
    expect(await checkContract("GET /swagger/assets", response)).toMatchObject({
      error: { code: "not_found" },
    });
  });
});
