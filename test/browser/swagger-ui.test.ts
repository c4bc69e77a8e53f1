import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ValidateResponse } from "../../src/http/schemas.ts";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { createKeyOverSocket } from "../support/admin-socket.ts";
import { describeEmbedded } from "../support/database.ts";
import { type RunningServer, sandbox, serviceEnv } from "../support/service.ts";
import { confinedBrowser, recordFailures } from "./chromium.ts";

/**
 * The OpenAPI UI at /swagger in a real headless Chromium, against a real server process:
 * it renders every route under the service's content-security policy, asks nothing of any
 * other host, and a "try it out" call with an API key reaches the API.
 */

// Installing Chromium on a fresh machine takes a minute or more; everything after is fast.
const SETUP_TIMEOUT_MS = 300_000;
setDefaultTimeout(30_000);

const ROUTES = [
  "DELETE /batches/{id}",
  "DELETE /monitors/{id}",
  "GET /batches/{id}",
  "GET /batches/{id}/items",
  "GET /health",
  "GET /monitors",
  "GET /monitors/{id}",
  "GET /monitors/{id}/events",
  "GET /status",
  "GET /usage",
  "GET /validations/{request_id}",
  "PATCH /monitors/{id}",
  "POST /batches",
  "POST /iban/build",
  "POST /monitors",
  "POST /monitors/{id}/check",
  "POST /validate",
];
/** The events the service sends, which Swagger UI lists with the routes. */
const EVENTS = [
  "POST batch.cancelled",
  "POST batch.completed",
  "POST vat.details_changed",
  "POST vat.match_changed",
  "POST vat.registration_changed",
];
const IBAN_INPUT = "DE89 3704 0044 0532 0130 00";

type Violation = { directive: string; blocked: string };
/**
 * The browser globals the functions run inside the page use, typed here because the project
 * compiles without the DOM library.
 */
type InPage = {
  document: {
    addEventListener(
      type: "securitypolicyviolation",
      listener: (event: { effectiveDirective: string; blockedURI: string }) => void,
    ): void;
    createElement(tag: "script"): { textContent: string | null };
    body: { append(node: unknown): void; dataset: Record<string, string | undefined> };
  };
  cspViolations: Violation[];
};

const box = sandbox();
// Kept after the run when a test left a screenshot in it.
const screenshots = mkdtempSync(join(tmpdir(), "swagger-ui-screenshots-"));
let vies: ViesFake | undefined;
let server: RunningServer;
let apiKey: string;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
let pageResponseHeaders: Record<string, string>;
let requested: string[];
let blocked: string[];
const consoleErrors: string[] = [];

/** Records every CSP violation in the page, where the test can read it; runs before any page script. */
async function recordViolations(target: Page): Promise<void> {
  await target.addInitScript(() => {
    const scope = globalThis as unknown as InPage;
    scope.cspViolations = [];
    scope.document.addEventListener("securitypolicyviolation", (event) => {
      scope.cspViolations.push({ directive: event.effectiveDirective, blocked: event.blockedURI });
    });
  });
}

const violationsIn = (target: Page) => target.evaluate(() => (globalThis as unknown as InPage).cspViolations);

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs `steps` on a page; on failure saves a screenshot of it and names it in the error. */
async function onPage(name: string, steps: () => Promise<void>, target = page): Promise<void> {
  try {
    await steps();
  } catch (error) {
    const path = join(screenshots, `${name}.png`);
    const saved = await target.screenshot({ path, fullPage: true }).then(
      () => `screenshot: ${path}`,
      (failure: unknown) => `no screenshot (${failure})`,
    );
    // A server that died mid-test shows in the browser only as refused connections.
    const state = processAlive(server.pid) ? "" : `\nthe server process ${server.pid} is no longer running`;
    if (error instanceof Error) error.message = `${error.message}\n${saved}${state}`;
    throw error;
  }
}

describeEmbedded("the Swagger UI against the embedded default", () => {
  beforeAll(async () => {
    vies = await startViesFake();
    const dataDir = join(box.tempDir(), "data");
    server = await box.startServer(serviceEnv({ DATA_DIR: dataDir, VIES_BASE_URL: vies.baseUrl }));
    apiKey = (await createKeyOverSocket(dataDir, "free", "swagger ui test")).api_key;
    ({ browser, context, requested, blocked } = await confinedBrowser(server.url));
    page = await context.newPage();
    recordFailures(page, consoleErrors);
    await recordViolations(page);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await box.cleanup();
    await vies?.stop();
    if (readdirSync(screenshots).length === 0) rmSync(screenshots, { recursive: true, force: true });
    else console.error(`screenshots of failed browser tests are in ${screenshots}`);
  });

  describe("the OpenAPI UI in Chromium", () => {
    test("loads under the service's content-security policy", async () => {
      await onPage("load", async () => {
        const response = await page.goto(`${server.url}/swagger`);
        expect(response?.status()).toBe(200);
        // headers() leaves out security headers; allHeaders() has them as the browser got them.
        pageResponseHeaders = (await response?.allHeaders()) ?? {};
        await page.locator(".swagger-ui .info .title").waitFor();
        expect(await page.locator(".swagger-ui .info .title").innerText()).toContain(
          "VAT and IBAN validation API",
        );
      });
      expect(pageResponseHeaders).toHaveProperty("content-security-policy");
      const policy = pageResponseHeaders["content-security-policy"] ?? "";
      const scriptSources = /(?:^|;)\s*script-src ([^;]*)/.exec(policy)?.[1]?.trim().split(/\s+/);
      expect(scriptSources).toEqual(["'self'"]);
    });

    test("shows every route of the OpenAPI document, and only those", async () => {
      await onPage("routes", async () => {
        const document = (await (await fetch(`${server.url}/swagger/json`)).json()) as {
          paths: Record<string, Record<string, unknown>>;
          webhooks: Record<string, Record<string, unknown>>;
        };
        const operations = (paths: Record<string, Record<string, unknown>>) =>
          Object.entries(paths).flatMap(([path, operations]) =>
            Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
          );
        const documented = operations(document.paths);
        const events = operations(document.webhooks);
        const blocks = page.locator(".opblock");
        await blocks.first().waitFor();
        const rendered = await Promise.all(
          (await blocks.all()).map(async (block) => {
            const method = await block.locator(".opblock-summary-method").innerText();
            const path = await block.locator(".opblock-summary-path").getAttribute("data-path");
            return `${method} ${path}`;
          }),
        );
        expect(documented.sort()).toEqual(ROUTES);
        expect(events.sort()).toEqual(EVENTS);
        expect(rendered.sort()).toEqual([...ROUTES, ...EVENTS].sort());
      });
    });

    test("try it out: POST /validate with an API key from Authorize answers 200 with the IBAN's result", async () => {
      await onPage("try-it-out", async () => {
        await page.locator(".auth-wrapper button.authorize").click();
        const dialog = page.locator(".modal-ux");
        const scheme = dialog.locator(".auth-container").filter({ hasText: "ApiKey" });
        await scheme.locator("input").fill(apiKey);
        // By their text: Swagger UI gives these buttons other accessible names.
        await scheme.locator("button", { hasText: /^Authorize$/ }).click();
        await scheme.locator("button", { hasText: /^Logout$/ }).waitFor();
        await dialog.locator("button", { hasText: /^Close$/ }).click();
        await dialog.waitFor({ state: "detached" });

        const operation = page.locator(".opblock-post").filter({
          has: page.locator('.opblock-summary-path[data-path="/validate"]'),
        });
        await operation.locator(".opblock-summary").click();
        // The page turns "try it out" on for every operation; click it should that change.
        const tryItOut = operation.getByRole("button", { name: "Try it out" });
        if (await tryItOut.isVisible()) await tryItOut.click();
        await operation.locator("textarea.body-param__text").fill(JSON.stringify({ iban: IBAN_INPUT }));

        const answered = page.waitForResponse(
          (response) => response.url() === `${server.url}/validate` && response.request().method() === "POST",
        );
        await operation.getByRole("button", { name: "Execute" }).click();
        const network = await answered;
        expect(network.status()).toBe(200);
        expect(await network.request().headerValue("x-api-key")).toBe(apiKey);

        const live = operation.locator(".live-responses-table tbody tr.response");
        expect((await live.locator(".response-col_status").innerText()).trim()).toBe("200");
        const shown = JSON.parse(
          await live.locator(".response-col_description .highlight-code pre").first().innerText(),
        ) as ValidateResponse;
        expect(shown.iban).toMatchObject({
          input: IBAN_INPUT,
          valid: true,
          iban: "DE89370400440532013000",
          country_code: "DE",
          error: null,
        });
        expect(shown).toEqual((await network.json()) as ValidateResponse);
      });
    });

    test("nothing failed and nothing was asked of another host", async () => {
      expect({ consoleErrors, violations: await violationsIn(page), blocked }).toEqual({
        consoleErrors: [],
        violations: [],
        blocked: [],
      });
      const paths = requested.map((url) => {
        expect(url).toStartWith(`${server.url}/`);
        return new URL(url).pathname;
      });
      expect(paths).toEqual(
        expect.arrayContaining([
          "/swagger",
          "/swagger/assets/swagger-ui-bundle.js",
          "/swagger/assets/init.js",
          "/swagger/json",
          "/validate",
        ]),
      );
    });
  });

  describe("the content-security policy in Chromium", () => {
    test("is enforced: a script injected inline into the page does not run, and is reported", async () => {
      const probe = await context.newPage();
      try {
        await onPage(
          "csp-enforced",
          async () => {
            await recordViolations(probe);
            await probe.goto(`${server.url}/swagger`);
            await probe.locator(".opblock").first().waitFor();
            const ran = await probe.evaluate(() => {
              const { document } = globalThis as unknown as InPage;
              const script = document.createElement("script");
              script.textContent = "document.body.dataset.inlineRan = 'yes'";
              document.body.append(script);
              return document.body.dataset.inlineRan === "yes";
            });
            expect(ran).toBe(false);
            // The report is an event, queued after the refusal.
            await probe.waitForFunction(() => (globalThis as unknown as InPage).cspViolations.length > 0);
            expect(await violationsIn(probe)).toEqual([{ directive: "script-src-elem", blocked: "inline" }]);
          },
          probe,
        );
      } finally {
        await probe.close();
      }
    });
  });
});
