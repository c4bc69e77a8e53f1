import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Send, sendTo } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { allMonitors, watch } from "../support/monitors.ts";
import { danishNumbers } from "../support/vat-numbers.ts";

/** What POST, PATCH and GET of monitors refuse, and that a refused creation leaves nothing. */

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ env: { BATCH_MAX_ITEMS: "20" } });
});
afterAll(() => harness.close());

async function keyed(plan: "free" | "pro" = "pro"): Promise<Send> {
  const key = await harness.createKey(plan, { rate: 1_000_000 });
  return sendTo(harness, key.secret);
}

async function refusal(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

const post = (send: Send, body: string, contentType = "application/json") =>
  send("POST", "/monitors", { body, headers: { "content-type": contentType } });

describe("POST /monitors refuses, and creates nothing", () => {
  const cases: [string, string, string, string?][] = [
    [
      "a malformed number",
      `{"vat":"DE12"}`,
      "`vat` is not a well-formed VAT number: DE VAT numbers are 9 digits",
    ],
    ["an unknown prefix", `{"vat":"XX123456789"}`, "`vat` is not a well-formed VAT number"],
    ["no vat", `{"reference":"x"}`, "`vat` is required: the number to watch"],
    ["a vat that is no string", `{"vat":12}`, "`vat` must be a string"],
    ["a GB number while the UK check is off", `{"vat":"GB980780684"}`, "`vat` cannot be watched: "],
    [
      "interval_days 0",
      `{"vat":"LU20260743","interval_days":0}`,
      "`interval_days` must be a whole number of days from 1 to 365",
    ],
    ["interval_days 366", `{"vat":"LU20260743","interval_days":366}`, "from 1 to 365"],
    ["interval_days 1.5", `{"vat":"LU20260743","interval_days":1.5}`, "from 1 to 365"],
    ["interval_days as a JSON string", `{"vat":"LU20260743","interval_days":"7"}`, "from 1 to 365"],
    [
      "a match with an unknown field",
      `{"vat":"LU20260743","match":{"nom":"x"}}`,
      "`match` has no field `nom`",
    ],
    [
      "a reference with a NUL",
      `{"vat":"LU20260743","reference":"a\\u0000b"}`,
      "`reference` must not contain a NUL",
    ],
    [
      "a refused webhook_url",
      `{"vat":"LU20260743","webhook_url":"http://127.0.0.1/x"}`,
      "`webhook_url` must be an https URL",
    ],
    [
      "both vat and items",
      `{"vat":"LU20260743","items":[{"vat":"LU20260743"}]}`,
      "send `vat` for one number or `items` for a list, not both",
    ],
    ["an empty list", `{"items":[]}`, "the watch list has no items"],
    [
      "a list over BATCH_MAX_ITEMS",
      JSON.stringify({ items: Array(21).fill({ vat: "LU20260743" }) }),
      "a watch list holds at most 20 items, got 21",
    ],
    [
      "the 4th item malformed",
      JSON.stringify({
        items: [
          { vat: "LU20260743" },
          { vat: "IE6388047V" },
          { vat: "BE0244142664" },
          { vat: "NL123456789B00" },
        ],
      }),
      "item 3: `vat` is not a well-formed VAT number",
    ],
    [
      "an item that is no object",
      `{"items":[{"vat":"LU20260743"},"IE6388047V"]}`,
      "item 1 must be an object with a `vat` string",
    ],
    ["not JSON", "{", "the body is not valid JSON"],
    [
      "a CSV without a vat column",
      "reference\r\nx\r\n",
      "the CSV header row must name a `vat` column",
      "text/csv",
    ],
    [
      "a CSV row malformed",
      "vat,interval_days\r\nLU20260743,7\r\nIE6388047V,\r\nDE12,\r\n",
      "item 2 (row 4): `vat` is not a well-formed VAT number",
      "text/csv",
    ],
    [
      "a CSV interval of letters",
      "vat,interval_days\r\nLU20260743,weekly\r\n",
      "item 0 (row 2): `interval_days` must be a whole number",
      "text/csv",
    ],
  ];
  for (const [name, body, message, contentType] of cases) {
    test(name, async () => {
      const send = await keyed();
      const answer = await refusal(await post(send, body, contentType));
      expect(answer).toMatchObject({ status: 400, code: "invalid_request" });
      expect(answer.message).toContain(message);
      expect(await allMonitors(send)).toEqual([]);
    });
  }

  test("past the plan's numbers per key: 400 naming the limit, nothing of the request created", async () => {
    const send = await keyed("free");
    expect(await fillTo(send, 1000)).toBe(1000);
    const over = await refusal(await post(send, JSON.stringify({ vat: "LU20260743" })));
    expect(over).toEqual({
      status: 400,
      code: "invalid_request",
      message:
        "the free plan watches at most 1000 numbers per key; this key watches 1000 and this request adds 1: delete monitors first (DELETE /monitors/{id})",
    });
    expect((await allMonitors(send)).length).toBe(1000);
    // A number already watched adds nothing: it is answered as it is.
    const [first] = await allMonitors(send, "", 1);
    expect((await post(send, JSON.stringify({ vat: first?.vat_number }))).status).toBe(200);
  });
});

/** Watches `count` more well-formed numbers, 20 a request; the key's monitors afterwards. */
async function fillTo(send: Send, count: number): Promise<number> {
  const numbers = danishNumbers(count, 20_000_000);
  for (let start = 0; start < numbers.length; start += 20) {
    const items = numbers.slice(start, start + 20).map((vat) => ({ vat }));
    expect((await post(send, JSON.stringify({ items }))).status).toBe(201);
  }
  return (await allMonitors(send)).length;
}

describe("PATCH /monitors/{id} refuses", () => {
  const cases: [string, string, string][] = [
    ["an empty object", "{}", "send at least one of `interval_days`, `reference`, `webhook_url`, `status`"],
    ["only unknown fields", `{"vat":"LU20260743"}`, "send at least one of"],
    ["a status it does not know", `{"status":"stopped"}`, "`status` must be `active` or `paused`"],
    [
      "an interval out of range",
      `{"interval_days":400}`,
      "`interval_days` must be a whole number of days from 1 to 365",
    ],
    [
      "a webhook_url that is no string",
      `{"webhook_url":5}`,
      "`webhook_url` must be a string, or null to remove it",
    ],
    ["a refused webhook_url", `{"webhook_url":"ftp://example.com/x"}`, "`webhook_url` must be an https URL"],
    ["an array", "[]", "the body must be a JSON object with the fields to change"],
  ];
  for (const [name, body, message] of cases) {
    test(name, async () => {
      const send = await keyed();
      const monitor = await watch(send, { vat: "LU20260743", interval_days: 9 });
      const answer = await refusal(await send("PATCH", `/monitors/${monitor.id}`, { body }));
      expect(answer).toMatchObject({ status: 400, code: "invalid_request" });
      expect(answer.message).toContain(message);
      expect(await allMonitors(send)).toEqual([monitor]);
    });
  }
});

describe("GET /monitors and events refuse what this API did not give out", () => {
  test("a status, cursor or limit out of shape: 400 naming it", async () => {
    const send = await keyed();
    const monitor = await watch(send, { vat: "LU20260743" });
    for (const [path, message] of [
      ["/monitors?status=deleted", "`status` must be one of active, paused"],
      ["/monitors?cursor=abc", "`cursor` is not one this API gave out"],
      ["/monitors?limit=0", "`limit` must be a whole number from 1 to 1000"],
      [`/monitors/${monitor.id}/events?cursor=-1`, "`cursor` is not one this API gave out"],
      [`/monitors/${monitor.id}/events?limit=1001`, "`limit` must be a whole number from 1 to 1000"],
    ] as const) {
      expect(await refusal(await send("GET", path))).toEqual({
        status: 400,
        code: "invalid_request",
        message,
      });
    }
  });
});

describe("marketplace subscribers", () => {
  test("are refused on the monitor routes: the gateway bills each call by its answer's header", async () => {
    const secret = "gateway-shared-secret-0123456789";
    const gateway = await startHarness({ env: { GATEWAY_PROXY_SECRET: secret } });
    try {
      const headers = { "x-gateway-proxy-secret": secret, "x-gateway-user": "subscriber-1" };
      for (const [method, path, body] of [
        ["POST", "/monitors", `{"vat":"LU20260743"}`],
        ["GET", "/monitors", undefined],
        ["GET", `/monitors/mon_${"0".repeat(24)}`, undefined],
      ] as const) {
        const response = await gateway.app.handle(
          new Request(`http://localhost${path}`, { method, headers, body }),
        );
        expect(await refusal(response)).toEqual({
          status: 403,
          code: "forbidden",
          message: "monitors are for direct API keys; through the marketplace, use /validate",
        });
      }
    } finally {
      await gateway.close();
    }
  });
});
