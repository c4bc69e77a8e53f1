import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Monitor } from "../../src/monitors/schema.ts";
import { type Send, sendTo } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { allMonitors, readMonitor, watch, watchList } from "../support/monitors.ts";

/**
 * The monitor routes without the checker: what is stored and answered at creation, in lists,
 * on changes and deletion. The checks themselves are in checks.test.ts.
 */

let harness: Harness;
const DAY = 86_400_000;

beforeAll(async () => {
  harness = await startHarness({
    env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" },
    start: new Date().toISOString(),
  });
});
afterAll(() => harness.close());

async function keyed(): Promise<Send> {
  const key = await harness.createKey("pro", { rate: 1_000_000 });
  return sendTo(harness, key.secret);
}

const now = () => new Date(harness.clock.now()).toISOString();

describe("POST /monitors", () => {
  test("one number: 201 with the monitor, due at once; the same number again (in another form): 200, the same monitor", async () => {
    const send = await keyed();
    const response = await send("POST", "/monitors", {
      body: JSON.stringify({ vat: "NL854265259B01", reference: "customer-1042", interval_days: 7 }),
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(201);
    const monitor = (await response.json()) as Monitor;
    expect(response.headers.get("location")).toBe(`/monitors/${monitor.id}`);
    expect(monitor).toEqual({
      id: expect.stringMatching(/^mon_[0-9a-f]{24}$/),
      vat_number: "NL854265259B01",
      reference: "customer-1042",
      interval_days: 7,
      status: "active",
      created_at: now(),
      last_checked_at: null,
      next_check_at: now(),
      last_result: null,
      webhook: null,
    });
    const again = await send("POST", "/monitors", {
      body: JSON.stringify({ vat: "nl 8542.65259 b01", reference: "other", interval_days: 30 }),
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(monitor);
  });

  test("a list: a monitor per item in input order, numbers watched already or twice in the list counted once", async () => {
    const send = await keyed();
    const before = await watch(send, { vat: "LU20260743" });
    const { monitors, created } = await watchList(send, {
      items: [
        { vat: "IE6388047V", reference: "a", interval_days: 1 },
        { vat: "LU 20260743" },
        { vat: "BE0244142664", match: { name: "VRT" } },
        { vat: "IE 6388047V", reference: "b" },
      ],
      webhook_url: "http://127.0.0.1:9/hooks",
    });
    expect(created).toBe(2);
    expect(monitors.map((monitor) => monitor.vat_number)).toEqual([
      "IE6388047V",
      "LU20260743",
      "BE0244142664",
      "IE6388047V",
    ]);
    expect(monitors[1]).toEqual(before);
    expect(monitors[3]).toEqual(monitors[0] as Monitor);
    expect(monitors[0]).toMatchObject({
      reference: "a",
      interval_days: 1,
      webhook: { url: "http://127.0.0.1:9/hooks", last_delivery_at: null, last_status: null, attempts: 0 },
    });
    expect(monitors[2]).toMatchObject({ reference: null, interval_days: 30 });
    const again = await watchList(send, { items: [{ vat: "BE0244142664" }] });
    expect(again).toEqual({ monitors: [monitors[2] as Monitor], created: 0 });
  });

  test("a CSV list: vat, reference, interval_days and match_* columns; other columns ignored", async () => {
    const send = await keyed();
    const response = await send("POST", "/monitors", {
      body: "customer,VAT,interval_days,reference,match_name\r\nx,NL854265259B01,14,c-1,GitHub BV\r\ny,DE811569869,,c-2,\r\n",
      headers: { "content-type": "text/csv" },
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as { monitors: Monitor[]; created: number };
    expect(body.created).toBe(2);
    expect(body.monitors).toMatchObject([
      { vat_number: "NL854265259B01", interval_days: 14, reference: "c-1" },
      { vat_number: "DE811569869", interval_days: 30, reference: "c-2" },
    ]);
  });
});

describe("GET /monitors", () => {
  test("cursor pages in creation order, filtered by status", async () => {
    const send = await keyed();
    const numbers = ["NL854265259B01", "LU20260743", "IE6388047V", "BE0244142664", "DE811569869"];
    const { monitors } = await watchList(send, { items: numbers.map((vat) => ({ vat })) });
    for (const monitor of [monitors[1], monitors[3]] as Monitor[]) {
      const paused = await send("PATCH", `/monitors/${monitor.id}`, {
        body: JSON.stringify({ status: "paused" }),
      });
      expect(paused.status).toBe(200);
    }
    const first = (await (await send("GET", "/monitors?limit=2")).json()) as {
      monitors: Monitor[];
      next_cursor: string | null;
    };
    expect(first.monitors.map((monitor) => monitor.vat_number)).toEqual(numbers.slice(0, 2));
    expect(first.next_cursor).toMatch(/^\d+$/);
    expect((await allMonitors(send, "", 2)).map((monitor) => monitor.vat_number)).toEqual(numbers);
    expect((await allMonitors(send, "?status=paused", 1)).map((monitor) => monitor.vat_number)).toEqual([
      "LU20260743",
      "BE0244142664",
    ]);
    expect((await allMonitors(send, "?status=active")).map((monitor) => monitor.vat_number)).toEqual([
      "NL854265259B01",
      "IE6388047V",
      "DE811569869",
    ]);
    const last = (await (await send("GET", "/monitors?status=active&limit=3")).json()) as {
      next_cursor: string | null;
    };
    expect(last.next_cursor).toBeNull();
  });
});

describe("PATCH /monitors/{id}", () => {
  test("reference and webhook set and removed; interval and status reschedule", async () => {
    const send = await keyed();
    const created = await watch(send, { vat: "IE6388047V", reference: "r" });
    const patch = async (body: unknown) => {
      const response = await send("PATCH", `/monitors/${created.id}`, { body: JSON.stringify(body) });
      expect(response.status).toBe(200);
      return (await response.json()) as Monitor;
    };
    expect(await patch({ reference: null, webhook_url: "http://127.0.0.1:9/x" })).toMatchObject({
      reference: null,
      webhook: { url: "http://127.0.0.1:9/x", attempts: 0 },
    });
    expect((await patch({ webhook_url: null })).webhook).toBeNull();
    // Not answered yet: its first check stays due at once, whatever the interval.
    expect(await patch({ interval_days: 90 })).toMatchObject({ interval_days: 90, next_check_at: now() });
    expect(await patch({ status: "paused" })).toMatchObject({ status: "paused", next_check_at: null });
    harness.clock.advance(DAY);
    // The round passed while it was paused: due again at once.
    expect(await patch({ status: "active" })).toMatchObject({ status: "active", next_check_at: now() });
    expect(await readMonitor(send, created.id)).toMatchObject({ status: "active", interval_days: 90 });
  });
});

describe("POST /monitors/{id}/check and DELETE /monitors/{id}", () => {
  test("a paused monitor asked to check: 202, due now, still paused; deleted: 200 with it as it was, then 404", async () => {
    const send = await keyed();
    const created = await watch(send, { vat: "BE0244142664" });
    await send("PATCH", `/monitors/${created.id}`, { body: JSON.stringify({ status: "paused" }) });
    harness.clock.advance(60_000);
    // It takes no body: one sent anyway is not read.
    const checked = await send("POST", `/monitors/${created.id}/check`, {
      body: "not json",
      headers: { "content-type": "application/json" },
    });
    expect(checked.status).toBe(202);
    const due = (await checked.json()) as Monitor;
    expect(due).toMatchObject({ status: "paused", next_check_at: now() });
    const deleted = await send("DELETE", `/monitors/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual(due);
    for (const [method, path] of [
      ["GET", `/monitors/${created.id}`],
      ["DELETE", `/monitors/${created.id}`],
      ["GET", `/monitors/${created.id}/events`],
    ] as const) {
      expect((await send(method, path)).status).toBe(404);
    }
  });
});

describe("another key's monitor", () => {
  test("is answered exactly as an unknown one: 404 on every route, nothing changed", async () => {
    const owner = await keyed();
    const stranger = await keyed();
    const monitor = await watch(owner, { vat: "NL854265259B01", reference: "mine" });
    const unknown = `mon_${"0".repeat(24)}`;
    for (const id of [monitor.id, unknown]) {
      for (const [method, path, body] of [
        ["GET", `/monitors/${id}`, undefined],
        ["PATCH", `/monitors/${id}`, JSON.stringify({ reference: "theirs" })],
        ["DELETE", `/monitors/${id}`, undefined],
        ["POST", `/monitors/${id}/check`, undefined],
        ["GET", `/monitors/${id}/events`, undefined],
      ] as const) {
        const response = await stranger(method, path, body === undefined ? {} : { body });
        expect({ method, path, status: response.status, body: await response.json() }).toEqual({
          method,
          path,
          status: 404,
          body: { error: { code: "not_found", message: `no monitor ${id}` } },
        });
      }
    }
    expect(await allMonitors(stranger)).toEqual([]);
    expect(await readMonitor(owner, monitor.id)).toEqual(monitor);
  });
});
