import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUNDLE_DIRECTORY, buildConsole } from "../../console/build.ts";
import { checkContract, type Harness, startHarness } from "../support/harness.ts";

/** GET /console and its assets: files of the service, under a strict CSP, cached, free of keys and quota. */

let harness: Harness;
let page: Response;
let html: string;

const get = (path: string, headers: Record<string, string> = {}) =>
  harness.app.handle(new Request(`http://localhost${path}`, { headers }));
const referencedBy = (text: string) =>
  [...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? "");

beforeAll(async () => {
  harness = await startHarness();
  page = await get("/console");
  html = await page.text();
});
afterAll(() => harness.close());

describe("GET /console", () => {
  test("is the page, without a key, under a policy that allows this origin only and no inline code", () => {
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self';");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("form-action 'none'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\bhttps?:\/\//i);
  });

  test("is asked again each time, and answered 304 while unchanged", async () => {
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const etag = page.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await get("/console", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect((await get("/console", { "if-none-match": '"other"' })).status).toBe(200);
  });

  test("every asset it references is served with its type and cached for good (its name changes with it)", async () => {
    const references = referencedBy(html).filter((reference) => reference.startsWith("/console/"));
    expect(references.length).toBe(2);
    for (const reference of references) {
      const response = await get(reference);
      expect({ reference, status: response.status }).toEqual({ reference, status: 200 });
      expect(response.headers.get("content-type")).toMatch(/^text\/(javascript|css); charset=utf-8$/);
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  test.each([
    "nope.js",
    "index.html",
    "..%2Fbuild.ts",
    "%2e%2e%2findex.html",
    "constructor",
  ])("/console/assets/%s → 404 not_found with the error body", async (name) => {
    const response = await get(`/console/assets/${name}`);
    expect(response.status).toBe(404);
    expect(await checkContract("GET /console/assets", response)).toMatchObject({
      error: { code: "not_found" },
    });
  });

  test("POST /console → 405 with the methods it takes", async () => {
    const response = await harness.app.handle(new Request("http://localhost/console", { method: "POST" }));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
  });
});

describe("the sample file", () => {
  test("is served as CSV and is a list POST /batches accepts", async () => {
    const script = readFileSync(
      join(BUNDLE_DIRECTORY, readdirSync(BUNDLE_DIRECTORY).find((name) => name.endsWith(".js")) ?? ""),
      "utf8",
    );
    const path = /\/console\/assets\/sample-[a-z0-9]+\.csv/.exec(script)?.[0] ?? "";
    const sample = await get(path);
    expect(sample.status).toBe(200);
    expect(sample.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const { secret } = await harness.createKey("pro");
    const created = await harness.request<{ counts: { total: number } }>("POST", "/batches", {
      key: secret,
      rawBody: await sample.text(),
      headers: { "content-type": "text/csv" },
    });
    expect(created.status).toBe(202);
    expect(created.body.counts.total).toBeGreaterThan(0);
  });
});

describe("the page costs no quota", () => {
  test("loading it and its assets leaves the key's usage untouched", async () => {
    const { secret } = await harness.createKey("free");
    for (const path of [
      "/console",
      ...referencedBy(html).filter((reference) => reference.startsWith("/console/")),
    ]) {
      await get(path, { "x-api-key": secret });
    }
    const usage = await harness.request<{ used: number; requests_this_month: number }>("GET", "/usage", {
      key: secret,
    });
    expect(usage.body).toMatchObject({ used: 0, requests_this_month: 0 });
  });
});

describe("the committed bundle", () => {
  test("is what `npm run console:build` makes of console/ now", async () => {
    const fresh = mkdtempSync(join(tmpdir(), "console-build-"));
    try {
      await buildConsole(fresh);
      const files = (directory: string) =>
        Object.fromEntries(
          readdirSync(directory)
            .sort()
            .map((name) => [name, readFileSync(join(directory, name), "utf8")]),
        );
      expect(files(BUNDLE_DIRECTORY)).toEqual(files(fresh));
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
