/**
 * Batches driven through the API: created, waited for, read page by page — over a harness
 * (in process) or a service process (over HTTP).
 */
import { expect } from "bun:test";
import type { Batch, BatchItem, BatchItemsPage } from "../../src/batches/schema.ts";

/** Sends one request with a key: a harness's app, or a server's URL. */
export type Send = (
  method: string,
  path: string,
  init?: { body?: string; headers?: Record<string, string> },
) => Promise<Response>;

export function sendTo(
  target: { app: { handle(request: Request): Promise<Response> } } | { url: string },
  key: string,
): Send {
  return (method, path, init = {}) => {
    const request = new Request(`${"url" in target ? target.url : "http://localhost"}${path}`, {
      method,
      headers: { "x-api-key": key, ...init.headers },
      body: init.body,
    });
    return "url" in target ? fetch(request) : target.app.handle(request);
  };
}

export async function createBatch(send: Send, body: unknown): Promise<Batch> {
  const response = await send("POST", "/batches", {
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  const created = (await response.json()) as Batch;
  expect({ status: response.status, body: created }).toMatchObject({
    status: 202,
    body: { status: "queued" },
  });
  expect(response.headers.get("location")).toBe(`/batches/${created.id}`);
  return created;
}

export async function readBatch(send: Send, id: string): Promise<Batch> {
  const response = await send("GET", `/batches/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Batch;
}

/** Polls the batch until `done` says so (by default: completed or cancelled); throws after `timeoutMs`. */
export async function waitForBatch(
  send: Send,
  id: string,
  options: { timeoutMs?: number; done?: (batch: Batch) => boolean } = {},
): Promise<Batch> {
  const done =
    options.done ?? ((batch: Batch) => batch.status === "completed" || batch.status === "cancelled");
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const batch = await readBatch(send, id);
    if (done(batch)) return batch;
    if (Date.now() > deadline)
      throw new Error(
        `batch ${id} not there after ${options.timeoutMs ?? 20_000} ms: ${JSON.stringify(batch)}`,
      );
    await Bun.sleep(50);
  }
}

/** Every item of a batch, page after page. */
export async function allItems(send: Send, id: string, limit = 1000): Promise<BatchItem[]> {
  const items: BatchItem[] = [];
  let cursor: string | null = "";
  while (cursor !== null) {
    const response = await send(
      "GET",
      `/batches/${id}/items?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    expect(response.status).toBe(200);
    const page = (await response.json()) as BatchItemsPage;
    items.push(...page.items);
    cursor = page.next_cursor;
  }
  return items;
}
