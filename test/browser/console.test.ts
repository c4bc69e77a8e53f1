import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { CreatedKey } from "../../src/accounts/admin.ts";
import type { ValidateResponse } from "../../src/http/schemas.ts";
import { DEFAULT_VIES_REGISTRY, startViesFake, type ViesFake } from "../fakes/vies.ts";
import ibanExamples from "../fixtures/iban-examples.json";
import { adminCommand, createKeyOverSocket } from "../support/admin-socket.ts";
import { describeEmbedded } from "../support/database.ts";
import { prng } from "../support/prng.ts";
import {
  awayFromMinuteEdge,
  KEY_CACHE_TTL_MS,
  type RunningServer,
  sandbox,
  serviceEnv,
} from "../support/service.ts";
import { wellFormedVatNumbers } from "../support/vat-numbers.ts";
import { confinedBrowser, recordFailures } from "./chromium.ts";

/**
 * The console at /console in a real headless Chromium, against a real server process on the
 * embedded default with the VIES fake: a key pasted (a wrong one first), an IBAN and a VAT
 * number checked, a 200-row CSV run to completion while the progress bar moves (and stops
 * asking while the tab is hidden), its results filtered and downloaded, a list cancelled, and a
 * revoked key sent back to the key field. Every step leaves a screenshot in a temporary folder, kept when a
 * test fails or KEEP_SCREENSHOTS is set.
 */

const SETUP_TIMEOUT_MS = 300_000;
setDefaultTimeout(45_000);

const IBAN_INPUT = "DE89 3704 0044 0532 0130 00";
const VAT_INPUT = "NL854265259B01";
/** Long enough that a 200-row list takes seconds with one call per member state at a time. */
const VIES_LATENCY_MS = 250;
const ROWS = 200;
/** The service's fresh-cache life: a watched number checked again after it asks VIES anew. */
const VAT_CACHE_TTL_SECONDS = 2;

type InPage = {
  document: { dispatchEvent(event: unknown): boolean; documentElement: { scrollWidth: number } };
  Event: new (type: string) => unknown;
  innerWidth: number;
  sessionStorage: { length: number; getItem(key: string): string | null };
  localStorage: { length: number };
};

const box = sandbox();
const screenshots = mkdtempSync(join(tmpdir(), "console-screenshots-"));
let failed = false;
let vies: ViesFake | undefined;
let server: RunningServer;
let dataDir: string;
let key: CreatedKey;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
let requested: string[];
let blocked: string[];
const failures: string[] = [];

/** Fills `field` of the Check-one form with `input`, presses Check, and returns the API's answer. */
async function checkOne(field: string, input: string): Promise<ValidateResponse> {
  await page.getByLabel(field).fill(input);
  const answered = page.waitForResponse((response) => response.url() === `${server.url}/validate`);
  await page.getByRole("button", { name: "Check", exact: true }).click();
  return (await (await answered).json()) as ValidateResponse;
}

/** Runs `steps`, then saves a screenshot named `name` (also when a step fails, naming it in the error). */
async function step(name: string, steps: () => Promise<void>): Promise<void> {
  const path = join(screenshots, `${name}.png`);
  try {
    await steps();
  } catch (error) {
    failed = true;
    if (error instanceof Error) error.message = `${error.message}\nscreenshot: ${path}`;
    throw error;
  } finally {
    await page.screenshot({ path, fullPage: true }).catch(() => {});
  }
}

/** A call of the API with `apiKey`, outside the page: what the page must show. */
async function api(path: string, apiKey: string, init: RequestInit = {}) {
  return fetch(`${server.url}${path}`, { ...init, headers: { "x-api-key": apiKey, ...init.headers } });
}

/** The page as if the user switched to another tab (`hidden`) or back. */
async function setHidden(hidden: boolean): Promise<void> {
  await page.evaluate((value) => {
    const scope = globalThis as unknown as InPage;
    for (const [name, state] of [
      ["hidden", value],
      ["visibilityState", value ? "hidden" : "visible"],
    ] as const) {
      Object.defineProperty(scope.document, name, { configurable: true, get: () => state });
    }
    scope.document.dispatchEvent(new scope.Event("visibilitychange"));
  }, hidden);
}

/** A number no step before the Watch tab's asks about: added there by hand. */
const WATCHED = "NL004495445B01";

/** The numbers the VIES fake knows as registered: every 20th row of the list is one of them. */
const REGISTERED = Object.keys(DEFAULT_VIES_REGISTRY);

/** 200 rows: VAT numbers VIES does not know (not valid), registered ones, valid and broken IBANs. */
function listOf200(): string {
  const vatNumber = wellFormedVatNumbers(prng(20));
  const ibans = Object.values(ibanExamples as Record<string, string>);
  const rows = ["reference,vat,iban"];
  for (let index = 0; index < ROWS; index++) {
    const iban = ibans[index % ibans.length] ?? "";
    const row =
      index % 5 === 4
        ? ["", index % 10 === 4 ? iban : `${iban.slice(0, 2)}00${iban.slice(4)}`]
        : [index % 20 === 0 ? (REGISTERED[(index / 20) % REGISTERED.length] ?? "") : vatNumber(), ""];
    rows.push([`customer-${index + 1}`, ...row].join(","));
  }
  return `${rows.join("\r\n")}\r\n`;
}

describeEmbedded("the console against the embedded default", () => {
  beforeAll(async () => {
    vies = await startViesFake();
    vies.setLatency(VIES_LATENCY_MS);
    dataDir = join(box.tempDir(), "data");
    server = await box.startServer(
      serviceEnv({
        DATA_DIR: dataDir,
        VIES_BASE_URL: vies.baseUrl,
        VIES_MAX_CONCURRENT_PER_STATE: "1",
        VAT_CACHE_TTL_SECONDS: String(VAT_CACHE_TTL_SECONDS),
        // With a requester, VIES gives each check a consultation number: the page must show it.
        VIES_REQUESTER_VAT: "BE0244142664",
      }),
    );
    key = await createKeyOverSocket(dataDir, "pro", "console test");
    ({ browser, context, requested, blocked } = await confinedBrowser(server.url));
    page = await context.newPage();
    await page.setViewportSize({ width: 1100, height: 900 });
    recordFailures(page, failures);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await box.cleanup();
    await vies?.stop();
    if (failed || process.env.KEEP_SCREENSHOTS) console.error(`console screenshots: ${screenshots}`);
    else rmSync(screenshots, { recursive: true, force: true });
  });

  describe("the console in Chromium", () => {
    test("a wrong key is refused in the API's words; the right one is kept in this tab's sessionStorage only", async () => {
      await step("1-key-refused", async () => {
        const response = await page.goto(`${server.url}/console`);
        expect(response?.status()).toBe(200);
        const refusal = (await (await api("/usage", "vsk_not_a_key")).json()) as {
          error: { message: string };
        };
        await page.getByLabel("API key").fill("vsk_not_a_key");
        await page.getByRole("button", { name: "Use this key" }).click();
        await expect(page.getByRole("alert").innerText()).resolves.toContain(refusal.error.message);
      });
      await step("2-key-accepted", async () => {
        await page.getByLabel("API key").fill(key.api_key);
        await page.getByRole("button", { name: "Use this key" }).click();
        await page.getByRole("tab", { name: "Check one" }).waitFor();
        const stored = await page.evaluate(() => {
          const scope = globalThis as unknown as InPage;
          return {
            session: scope.sessionStorage.getItem("vat-iban-console.api-key"),
            local: scope.localStorage.length,
          };
        });
        expect(stored).toEqual({ session: key.api_key, local: 0 });
        expect(await context.cookies()).toEqual([]);
        expect(page.url()).toBe(`${server.url}/console`);
      });
    });

    test("Check one: an IBAN, with its bank and BIC, billed", async () => {
      await step("3-iban", async () => {
        await page.getByLabel("IBAN", { exact: true }).check();
        const body = await checkOne("IBAN, with or without spaces", IBAN_INPUT);
        const card = page.getByRole("article");
        await expect(card.innerText()).resolves.toContain("Valid IBAN");
        const text = await card.innerText();
        expect(text).toContain(body.iban?.iban_formatted ?? "missing");
        expect(text).toContain(body.iban?.bank?.name ?? "missing");
        expect(text).toContain(body.iban?.bank?.bic ?? "missing");
        expect(body.billable).toBe(true);
        expect(body.iban?.national_check).toBe("passed");
        expect(text).toContain("National check digits\nhold");
        await expect(page.locator(".billing").innerText()).resolves.toContain("Billed: 1 validation");
      });
      await step("3b-iban-national-check-failed", async () => {
        // Valid by mod-97, but its Spanish control digits do not hold: a warning, in the API's words.
        const body = await checkOne("IBAN, with or without spaces", "ES42 2100 0418 4502 0006 1332");
        expect(body.iban).toMatchObject({ valid: true, national_check: "failed" });
        const card = page.getByRole("article");
        await expect(card.innerText()).resolves.toContain(
          "Valid IBAN, but its national check digits do not hold",
        );
        await expect(card.getByRole("note").innerText()).resolves.toBe(
          body.iban?.warning?.message ?? "missing",
        );
        await expect(card.innerText()).resolves.toContain("National check digits\ndo not hold");
      });
    });

    test("Check one: a VAT number, with its registered name, consultation number and billing", async () => {
      await step("4-vat", async () => {
        await page.getByLabel("VAT number", { exact: true }).check();
        const body = await checkOne("VAT number, with its country prefix", VAT_INPUT);
        const card = page.getByRole("article");
        await expect(card.innerText()).resolves.toContain("Valid: registered for VAT");
        const text = await card.innerText();
        expect(text).toContain(body.vat?.name ?? "missing");
        expect(body.vat?.consultation_number).toBeString();
        expect(text).toContain(`Consultation number\n${body.vat?.consultation_number}`);
        expect(text).toContain("VIES");
        await expect(page.locator(".billing").innerText()).resolves.toContain(
          body.billable ? "Billed: 1 validation" : "Not billed",
        );
      });
    });

    test("Check one: a VAT number with the name and city a customer gave, compared with the register", async () => {
      await step("4b-vat-match", async () => {
        await page.getByLabel("VAT number", { exact: true }).check();
        await page.getByLabel("VAT number, with its country prefix").fill(VAT_INPUT);
        await page.getByText("Compare with the name and address you were given").click();
        await page.getByLabel("Name", { exact: true }).fill("GitHub BV");
        await page.getByLabel("City", { exact: true }).fill("Amsterdam");
        const asked = page.waitForRequest((request) => request.url() === `${server.url}/validate`);
        const answered = page.waitForResponse((response) => response.url() === `${server.url}/validate`);
        await page.getByRole("button", { name: "Check", exact: true }).click();
        expect((await asked).postDataJSON()).toEqual({
          vat: VAT_INPUT,
          match: { name: "GitHub BV", city: "Amsterdam" },
        });
        const body = (await (await answered).json()) as ValidateResponse;
        expect(body.vat?.match).toEqual({
          overall: "match",
          name: { result: "match", by: "local" },
          city: { result: "match", by: "local" },
        });
        const compared = page.getByRole("region", { name: "Details compared" });
        const text = await compared.innerText();
        expect(text).toContain("The details you gave match the register");
        expect(text).toContain("Name\nmatches (by this service)");
        expect(text).toContain("City\nmatches (by this service)");
        expect(text).not.toContain("Street");
      });
    });

    test("Check a list: 200 rows queued, the bar moving, no polling while hidden, results filtered and downloaded as the API gives them", async () => {
      let batchId = "";
      const polls: number[] = [];
      page.on("request", (request) => {
        if (/\/batches\/bat_[^/]+$/.test(request.url()) && request.method() === "GET") polls.push(Date.now());
      });
      await step("5-list-chosen", async () => {
        // By keyboard: the tabs follow the arrow keys.
        await page.getByRole("tab", { name: "Check one" }).focus();
        await page.keyboard.press("ArrowRight");
        await expect(
          page.getByRole("tab", { name: "Check a list" }).getAttribute("aria-selected"),
        ).resolves.toBe("true");
        await page.getByLabel("Drop the CSV file here, or choose it:").setInputFiles({
          name: "customers.csv",
          mimeType: "text/csv",
          buffer: Buffer.from(listOf200()),
        });
      });
      const seen = new Set<number>();
      const progress = page.locator("#batch-progress");
      await step("6-list-running", async () => {
        const created = page.waitForResponse((response) => response.url() === `${server.url}/batches`);
        await page.getByRole("button", { name: "Check this list" }).click();
        batchId = ((await (await created).json()) as { id: string }).id;
        await expect(page.locator(".status").innerText()).resolves.toMatch(/Queued|Running/);
        // The bar, read until it has shown a value between empty and full.
        for (let value = 0; value === 0 || value === ROWS; ) {
          value = Number(await progress.getAttribute("value"));
          seen.add(value);
          if (value === ROWS) throw new Error("the list finished before the bar was seen part-way");
          await Bun.sleep(50);
        }
      });
      await step("7-list-hidden", async () => {
        await setHidden(true);
        const hiddenAt = Date.now();
        // Twice the interval it polls at (every second, on a pro key).
        await Bun.sleep(2000);
        expect(polls.filter((at) => at > hiddenAt + 200)).toEqual([]);
        const shownAt = Date.now();
        await setHidden(false);
        while (!polls.some((at) => at >= shownAt)) await Bun.sleep(20);
      });
      await step("8-list-completed", async () => {
        for (;;) {
          seen.add(Number(await progress.getAttribute("value")));
          if ((await page.locator(".status").innerText()) === "Completed") break;
          await Bun.sleep(50);
        }
        expect(Number(await progress.getAttribute("value"))).toBe(ROWS);
        const between = [...seen].filter((value) => value > 0 && value < ROWS);
        expect(between.length).toBeGreaterThanOrEqual(2);
        const batch = (await (await api(`/batches/${batchId}`, key.api_key)).json()) as {
          counts: Record<string, number>;
        };
        const counts = await page.locator("#batch-counts").innerText();
        expect(counts).toContain(`${batch.counts.valid} valid, ${batch.counts.invalid} not valid`);
        await page.getByRole("table").waitFor();
        await expect(page.locator("tbody tr").count()).resolves.toBe(25);
        // The window as a person sees it: the README's picture of the console (docs/console.png).
        await page.screenshot({ path: join(screenshots, "readme.png") });
      });
      await step("9-list-filtered", async () => {
        await page.getByLabel("Show").selectOption("invalid");
        const badges = await page.locator("tbody .badge").allInnerTexts();
        expect(badges.length).toBeGreaterThan(0);
        expect(new Set(badges)).toEqual(new Set(["Not valid"]));
        await page.getByRole("button", { name: "Next" }).click();
        await expect(page.locator("caption").innerText()).resolves.toStartWith("Rows 26–");
      });
      await step("10-list-downloaded", async () => {
        const downloaded = page.waitForEvent("download");
        await page.getByRole("button", { name: "Download the results (CSV)" }).click();
        const file = await (await downloaded).path();
        const expected = await (
          await api(`/batches/${batchId}/items?limit=1000`, key.api_key, { headers: { accept: "text/csv" } })
        ).text();
        expect(readFileSync(file, "utf8")).toBe(expected);
        expect(expected.split("\r\n").length).toBe(ROWS + 2);
      });
      await step("10b-list-watched", async () => {
        const items = (
          (await (await api(`/batches/${batchId}/items?limit=1000`, key.api_key)).json()) as {
            items: { reference: string | null; vat?: { valid: boolean | null; vat_number: string | null } }[];
          }
        ).items;
        const valid = new Map<string, string | null>();
        for (const item of items)
          if (item.vat?.valid === true && item.vat.vat_number && !valid.has(item.vat.vat_number))
            valid.set(item.vat.vat_number, item.reference);
        expect([...valid.keys()].sort()).toEqual([...REGISTERED].sort());
        await page
          .getByRole("button", { name: `Watch the ${valid.size} valid VAT numbers for changes` })
          .click();
        await page
          .getByRole("status")
          .filter({ hasText: `${valid.size} numbers are watched now (${valid.size} new)` })
          .waitFor();
        const watched = (
          (await (await api("/monitors?limit=1000", key.api_key)).json()) as {
            monitors: { vat_number: string; reference: string | null; status: string }[];
          }
        ).monitors;
        expect(new Map(watched.map((monitor) => [monitor.vat_number, monitor.reference]))).toEqual(valid);
        expect(new Set(watched.map((monitor) => monitor.status))).toEqual(new Set(["active"]));
      });
    });

    test("Check a list: a running list cancelled", async () => {
      await step("11-list-cancelled", async () => {
        await page.getByRole("button", { name: "Check another list" }).click();
        vies?.setBehaviour("*", { kind: "hang" });
        try {
          await page.getByLabel("Drop the CSV file here, or choose it:").setInputFiles({
            name: "three.csv",
            mimeType: "text/csv",
            // Numbers no earlier step asked about, so none is answered from the cache.
            buffer: Buffer.from(
              `vat\r\n${Array.from({ length: 3 }, wellFormedVatNumbers(prng(21))).join("\r\n")}\r\n`,
            ),
          });
          await page.getByRole("button", { name: "Check this list" }).click();
          await page.getByRole("button", { name: "Cancel the rest" }).click();
          await page.locator(".status", { hasText: "Cancelled" }).waitFor();
          await page.getByRole("table").waitFor();
          await expect(page.locator("tbody .badge").allInnerTexts()).resolves.toEqual([
            "Cancelled",
            "Cancelled",
            "Cancelled",
          ]);
        } finally {
          vies?.clearBehaviour("*");
        }
      });
    });

    test("Watch: the key's watched numbers; one more added, its change found when checked now and listed as an event, paused, and no longer watched", async () => {
      await step("12-watch", async () => {
        await page.getByRole("tab", { name: "Watch" }).click();
        const table = page.getByRole("table", { name: /Watched numbers/ });
        await table.waitFor();
        const listed = (await (await api("/monitors?limit=50", key.api_key)).json()) as {
          monitors: { vat_number: string }[];
        };
        await expect(table.locator("tbody tr").count()).resolves.toBe(listed.monitors.length);
        await page.getByLabel("VAT number to watch").fill(WATCHED);
        await page.getByLabel("Your reference (optional)").fill("acme-001");
        await page.getByRole("button", { name: "Watch", exact: true }).click();
        const row = table.locator("tbody tr", { hasText: WATCHED });
        await expect(row.innerText()).resolves.toContain("acme-001");
      });
      const monitorOf = async (vat: string) =>
        (
          (await (await api("/monitors?limit=1000", key.api_key)).json()) as {
            monitors: { id: string; vat_number: string; status: string; last_checked_at: string | null }[];
          }
        ).monitors.find((monitor) => monitor.vat_number === vat);
      await step("12b-watch-events-none", async () => {
        for (;;) {
          const watched = await monitorOf(WATCHED);
          if (watched?.last_checked_at) break;
          await Bun.sleep(100);
        }
        await page.getByRole("button", { name: `Events of ${WATCHED}` }).click();
        const region = page.getByRole("region", { name: `Events of ${WATCHED}` });
        await region.getByText("Nothing has changed").waitFor();
        const row = page
          .getByRole("table", { name: /Watched numbers/ })
          .locator("tbody tr", { hasText: WATCHED });
        await expect(row.innerText()).resolves.toContain("not valid");
      });
      await step("12c-watch-registered-checked-now", async () => {
        // The number is registered after its first check; checked now, past the cache's life, the
        // change is an event, and the row's last answer follows when its events are asked again.
        if (!vies) throw new Error("the VIES fake did not start");
        vies.setRegistry({
          ...DEFAULT_VIES_REGISTRY,
          [WATCHED]: {
            valid: true,
            name: "ACME NEDERLAND B.V.",
            address: "\nKEIZERSGRACHT 1\n1015AA AMSTERDAM\n",
          },
        });
        await Bun.sleep(VAT_CACHE_TTL_SECONDS * 1000 + 100);
        const checked = page.waitForResponse((response) =>
          /\/monitors\/mon_[^/]+\/check$/.test(response.url()),
        );
        await page.getByRole("button", { name: `Check now ${WATCHED}` }).click();
        expect((await checked).status()).toBe(202);
        const id = (await monitorOf(WATCHED))?.id;
        for (;;) {
          const listed = (await (await api(`/monitors/${id}/events`, key.api_key)).json()) as {
            events: unknown[];
          };
          if (listed.events.length > 0) break;
          await Bun.sleep(100);
        }
        await page.getByRole("button", { name: `Events of ${WATCHED}` }).click();
        const region = page.getByRole("region", { name: `Events of ${WATCHED}` });
        await region.getByText("Registration changed (now registered for VAT)").waitFor();
        const row = page
          .getByRole("table", { name: /Watched numbers/ })
          .locator("tbody tr", { hasText: WATCHED });
        await expect(row.innerText()).resolves.toContain("ACME NEDERLAND B.V.");
      });
      await step("12d-watch-pause-stop", async () => {
        await page.getByRole("button", { name: `Pause ${WATCHED}` }).click();
        await page.getByRole("button", { name: `Resume ${WATCHED}` }).waitFor();
        await expect(monitorOf(WATCHED)).resolves.toMatchObject({ status: "paused" });
        await page.getByRole("button", { name: `Stop watching ${WATCHED}` }).click();
        await page
          .getByRole("table", { name: /Watched numbers/ })
          .locator("tbody tr", { hasText: WATCHED })
          .waitFor({ state: "detached" });
        await expect(monitorOf(WATCHED)).resolves.toBeUndefined();
      });
    });

    test("Usage, on a phone-sized screen: the month's use as a bar, the reset date and the plan; nothing wider than the screen", async () => {
      await step("13-usage-phone", async () => {
        await page.setViewportSize({ width: 375, height: 740 });
        await page.getByRole("tab", { name: "Usage" }).click();
        const usage = (await (await api("/usage", key.api_key)).json()) as {
          used: number;
          monthly_quota: number;
          plan_name: string;
        };
        const bar = page.locator("#usage-bar");
        await bar.waitFor();
        expect(await bar.getAttribute("value")).toBe(String(usage.used));
        expect(await bar.getAttribute("max")).toBe(String(usage.monthly_quota));
        const text = await page.locator("#panel-usage").innerText();
        expect(text).toContain(
          `${usage.used} of ${usage.monthly_quota.toLocaleString("en")} validations used`,
        );
        expect(text).toMatch(/Resets\s+on .+ \(00:00 UTC\)/);
        expect(text).toContain(`${usage.plan_name}: `);
        for (const tab of ["Usage", "Check a list", "Check one"]) {
          await page.getByRole("tab", { name: tab }).click();
          const widths = await page.evaluate(() => {
            const scope = globalThis as unknown as InPage;
            return { page: scope.document.documentElement.scrollWidth, screen: scope.innerWidth };
          });
          expect({ tab, width: widths.page }).toEqual({ tab, width: widths.screen });
        }
      });
    });

    test("a 429 says when to retry", async () => {
      const limited = await adminCommand<CreatedKey>(dataDir, "POST", "/keys", {
        plan: "pro",
        name: "console test, 2 a minute",
        quota: null,
        rate: 2,
      });
      const second = await context.newPage();
      try {
        await awayFromMinuteEdge(10_000);
        await second.goto(`${server.url}/console`);
        await second.getByLabel("API key").fill(limited.api_key);
        await second.getByRole("button", { name: "Use this key" }).click();
        await second.getByLabel("VAT number, with its country prefix").fill(VAT_INPUT);
        await second.getByRole("button", { name: "Check", exact: true }).click();
        await second.locator(".billing").waitFor();
        await second.getByRole("button", { name: "Check", exact: true }).click();
        const alert = second.getByRole("alert");
        await alert.waitFor();
        const text = await alert.innerText();
        expect(text).toMatch(/more than 2 requests in this minute; retry in \d+ s/);
        expect(text).toMatch(/Try again in \d+ s \(at /);
        expect(text).toContain("HTTP 429, rate_limited");
        await second.screenshot({ path: join(screenshots, "14-rate-limited.png"), fullPage: true });
      } finally {
        await second.close();
      }
    });

    test("a revoked key: the API's refusal is shown at the key field, and the key is forgotten", async () => {
      await step("15-revoked", async () => {
        await page.setViewportSize({ width: 1100, height: 900 });
        await adminCommand(dataDir, "POST", `/keys/${key.key_id}/revoke`);
        await Bun.sleep(KEY_CACHE_TTL_MS + 200);
        const refusal = (await (await api("/usage", key.api_key)).json()) as { error: { message: string } };
        await page.getByRole("tab", { name: "Check one" }).click();
        await page.getByLabel("VAT number, with its country prefix").fill(VAT_INPUT);
        await page.getByRole("button", { name: "Check", exact: true }).click();
        await page.getByLabel("API key").waitFor();
        await expect(page.getByRole("alert").innerText()).resolves.toContain(refusal.error.message);
        const stored = await page.evaluate(() => (globalThis as unknown as InPage).sessionStorage.length);
        expect(stored).toBe(0);
      });
    });

    test("nothing failed but the refusals, and the page asked only for itself and the public API", async () => {
      // Chromium reports every 4xx answer on the console: the wrong key's 401, the revoked key's 403.
      expect({ failures, blocked }).toEqual({
        failures: [expect.stringContaining("status of 401"), expect.stringContaining("status of 403")],
        blocked: [],
      });
      const document = (await (await fetch(`${server.url}/swagger/json`)).json()) as { paths: object };
      const routes = Object.keys(document.paths).map(
        (path) => new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      );
      const paths = new Set(requested.map((url) => new URL(url).pathname));
      const outside = [...paths].filter(
        (path) =>
          !["/console", "/swagger/json"].includes(path) &&
          !path.startsWith("/console/assets/") &&
          !routes.some((route) => route.test(path)),
      );
      expect(outside).toEqual([]);
      expect(requested.every((url) => url.startsWith(`${server.url}/`))).toBe(true);
    });
  });
});
