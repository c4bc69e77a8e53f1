/** Monitors driven through the API, over a harness (in process) or a service process (over HTTP). */
import { expect } from "bun:test";
import type {
  Monitor,
  MonitorEventPage,
  MonitorEventRecord,
  MonitorPage,
} from "../../src/monitors/schema.ts";
import type { Send } from "./batches.ts";

const json = (body: unknown) => ({
  body: JSON.stringify(body),
  headers: { "content-type": "application/json" },
});

/** POST /monitors with one number; the monitor (201 created or 200 existing). */
export async function watch(send: Send, body: Record<string, unknown>): Promise<Monitor> {
  const response = await send("POST", "/monitors", json(body));
  const monitor = (await response.json()) as Monitor;
  expect([200, 201]).toContain(response.status);
  expect(monitor.vat_number).toEqual(expect.any(String));
  return monitor;
}

/** POST /monitors with a list (JSON); the monitors, and how many were created. */
export async function watchList(
  send: Send,
  body: { items: Record<string, unknown>[]; webhook_url?: string },
): Promise<{ monitors: Monitor[]; created: number }> {
  const response = await send("POST", "/monitors", json(body));
  const created = (await response.json()) as { monitors: Monitor[]; created: number };
  expect({ status: response.status, created: created.created }).toMatchObject({
    status: created.created > 0 ? 201 : 200,
  });
  return created;
}

export async function readMonitor(send: Send, id: string): Promise<Monitor> {
  const response = await send("GET", `/monitors/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Monitor;
}

/** Polls the monitor until `done` says so; throws after `timeoutMs`. */
export async function waitForMonitor(
  send: Send,
  id: string,
  done: (monitor: Monitor) => boolean,
  timeoutMs = 20_000,
): Promise<Monitor> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const monitor = await readMonitor(send, id);
    if (done(monitor)) return monitor;
    if (Date.now() > deadline)
      throw new Error(`monitor ${id} not there after ${timeoutMs} ms: ${JSON.stringify(monitor)}`);
    await Bun.sleep(25);
  }
}

/** Every page of a list route (`/monitors…` or `/monitors/{id}/events…`), in order. */
async function allPages<T>(
  send: Send,
  path: string,
  field: "monitors" | "events",
  limit: number,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = "";
  const join = path.includes("?") ? "&" : "?";
  while (cursor !== null) {
    const response = await send("GET", `${path}${join}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as MonitorPage & MonitorEventPage;
    items.push(...(page[field] as T[]));
    cursor = page.next_cursor;
  }
  return items;
}

export const allMonitors = (send: Send, query = "", limit = 1000) =>
  allPages<Monitor>(send, `/monitors${query}`, "monitors", limit);

export const allEvents = (send: Send, id: string, limit = 1000) =>
  allPages<MonitorEventRecord>(send, `/monitors/${id}/events`, "events", limit);
