import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { ensureChromium } from "./ensure-chromium.ts";

// As root in a container: no sandbox, no GPU, and none of Chromium's own traffic (updates,
// sync, safe browsing) — that would leave the machine, or fail against its closed network.
// The resolver rule makes any other host name unresolvable, so even a request that slipped
// past the context's interception could not go out.
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];

export type ConfinedBrowser = {
  browser: Browser;
  context: BrowserContext;
  /** Every URL the pages asked for. */
  requested: string[];
  /** Those that were not the server's, refused. */
  blocked: string[];
};

/**
 * Debian's headless Chromium (installed when missing) with one context whose every request is
 * seen: those to `origin` go through, anything else is refused and recorded.
 */
export async function confinedBrowser(origin: string): Promise<ConfinedBrowser> {
  const executablePath = await ensureChromium();
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_FLAGS, timeout: 30_000 });
  const context = await browser.newContext();
  const requested: string[] = [];
  const blocked: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    requested.push(url);
    if (url.startsWith(`${origin}/`)) return route.continue();
    blocked.push(url);
    return route.abort("blockedbyclient");
  });
  // Below the tests' own limit, so that a stuck step fails with Playwright's account of it
  // (and a screenshot) rather than a bare timeout.
  context.setDefaultTimeout(10_000);
  return { browser, context, requested, blocked };
}

/** Collects what went wrong in `page`: console errors, uncaught exceptions, failed requests. */
export function recordFailures(page: Page, failures: string[]): void {
  page.on("console", (message) => {
    if (message.type() === "error") failures.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) =>
    failures.push(`request failed: ${request.url()} ${request.failure()?.errorText}`),
  );
}
