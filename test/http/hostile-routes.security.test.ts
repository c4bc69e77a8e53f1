import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ErrorResponseSchema } from "../../src/kernel/errors.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { prng, seedFrom } from "../support/prng.ts";

/**
 * Hostile paths and query strings against every route the app serves — read from the app
 * itself, so a route added later is fuzzed without anyone touching this file — with a valid
 * key: never a 500, every error in the error shape, nothing logged as unhandled. Path
 * parameters get bytes the database cannot hold, broken percent-encoding and absurd lengths;
 * query strings get unknown names (a cache-buster), repeated and bracketed names and the same
 * values. The random part is seeded (printed; ROUTE_FUZZ_SEED replays it).
 */

const SEED = seedFrom("ROUTE_FUZZ_SEED");
console.log(`route fuzz seed: ${SEED} (replay with ROUTE_FUZZ_SEED=${SEED})`);

const ERROR = TypeCompiler.Compile(ErrorResponseSchema);

/** Path segments as they go on the wire (already percent-encoded where they are). */
const HOSTILE_SEGMENTS = [
  "%00",
  "x%00y",
  "%",
  "%zz",
  "%ED%A0%80", // a UTF-16 surrogate in UTF-8: not valid UTF-8
  "%C0%AF", // an overlong '/'
  "%FF",
  "%F0%9F%8E%89",
  "%E2%80%AE",
  "%20",
  "..",
  "%2e%2e",
  "%2F",
  "a%2Fb",
  "%5C",
  "'%20OR%201=1--",
  "%27%3B%20DROP%20TABLE%20batches%3B--",
  "x".repeat(5000),
  "%41".repeat(3000),
  `bat_${"0".repeat(24)}`,
  `bat_${"0".repeat(24)}.0`,
  "ünï",
  "-1",
  "1e308",
  "null",
  "__proto__",
];

/** Query strings (without `?`); `NAME` stands for each parameter the route documents. */
const HOSTILE_QUERIES = [
  "_=123",
  "_=1&__=2&x=y",
  "NAME=%00",
  "NAME=%",
  "NAME=%zz",
  "NAME=%ED%A0%80",
  "NAME=1&NAME=2",
  "NAME[]=1",
  "NAME[a]=1",
  "NAME",
  "NAME=",
  "=1",
  "&&&",
  "%00=1",
  "%=%",
  "__proto__=1",
  "__proto__[x]=1",
  "constructor[prototype][x]=1",
  `NAME=${"9".repeat(5000)}`,
  `NAME=-1`,
  `NAME=0x10`,
  `NAME=1e3`,
  `NAME=${"%41".repeat(2000)}`,
  Array.from({ length: 500 }, (_, index) => `p${index}=${index}`).join("&"),
];

let harness: Harness;
let key: string;
/** Every route the app serves, as Elysia lists them, with the query parameters it documents. */
let routes: { method: string; path: string; query: string[] }[];
let sent = 0;

beforeAll(async () => {
  harness = await startHarness();
  key = (await harness.createKey("pro", { rate: 1_000_000, quota: 100_000_000 })).secret;
  const document = (await (
    await harness.app.handle(new Request("http://localhost/swagger/json"))
  ).json()) as {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
  };
  routes = harness.app.routes.map(({ method, path }) => {
    const documented = document.paths[path.replace(/:(\w+)/g, "{$1}")]?.[method.toLowerCase()];
    const query = (documented?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
    return { method, path, query };
  });
});
afterAll(() => harness.close());

/** Sends one request; a failure names it and the seed. */
async function send(method: string, url: string): Promise<number> {
  sent += 1;
  const response = await harness.app.handle(
    new Request(`http://localhost${url}`, { method, headers: { "x-api-key": key } }),
  );
  const text = await response.text();
  const where = `${method} ${url.slice(0, 120)} (seed ${SEED})`;
  if (response.status >= 500 && response.status !== 503)
    throw new Error(`${where}: ${response.status} ${text.slice(0, 300)}`);
  if (response.status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${where}: ${response.status} is not JSON: ${text.slice(0, 120)}`);
    }
    if (!ERROR.Check(body)) throw new Error(`${where}: ${response.status} off the error shape: ${text}`);
  }
  return response.status;
}

/** The path of a route with each parameter as `value`. */
const fill = (path: string, value: string) => path.replace(/:\w+|\*/g, value);

describe("every route", () => {
  test("the app serves routes with parameters and documented query parameters", () => {
    // What the fuzz below covers; if these ever go, it fuzzes less than it claims.
    expect(routes.some((route) => route.path.includes(":"))).toBe(true);
    expect(routes.some((route) => route.query.length > 0)).toBe(true);
  });

  test("hostile path parameters: 4xx with the error shape, never a 500", async () => {
    const random = prng(SEED + 1);
    for (const route of routes.filter((candidate) => /:\w+|\*/.test(candidate.path))) {
      const randomSegments = Array.from({ length: 20 }, () =>
        Array.from(
          { length: 1 + random.int(40) },
          () => `%${random.int(256).toString(16).padStart(2, "0")}`,
        ).join(""),
      );
      for (const segment of [...HOSTILE_SEGMENTS, ...randomSegments]) {
        const status = await send(route.method, fill(route.path, segment));
        expect(status).toBeLessThan(500);
      }
    }
  });

  test("hostile query strings: ignored or 4xx with the error shape, never a 500", async () => {
    const random = prng(SEED + 2);
    for (const route of routes) {
      const names = [...route.query, "x"];
      const base = fill(route.path, "x1");
      for (const query of HOSTILE_QUERIES) {
        for (const name of names) await send(route.method, `${base}?${query.replaceAll("NAME", name)}`);
      }
      for (let index = 0; index < 20; index++) {
        const bytes = Array.from({ length: 1 + random.int(30) }, () =>
          random.pick(["%", "=", "&", "[", "]", "%00", "%ED%A0%80", "a", "1", random.pick(names)]),
        );
        await send(route.method, `${base}?${bytes.join("")}`);
      }
    }
  });

  test("an unknown query parameter (a cache-buster) changes nothing", async () => {
    const batch = await harness.request<{ id: string }>("POST", "/batches", {
      key,
      body: { items: [{ iban: "DE89370400440532013000" }] },
    });
    expect(batch.status).toBe(202);
    for (const path of [`/batches/${batch.body.id}`, `/batches/${batch.body.id}/items`, "/usage"]) {
      const plain = await harness.request("GET", path, { key });
      const busted = await harness.request("GET", `${path}?_=1700000000000`, { key });
      expect({ path, status: busted.status }).toEqual({ path, status: plain.status });
      expect(plain.status).toBe(200);
    }
  });

  test("batch bodies with what the database cannot hold: 400 naming the item, never a 500", async () => {
    const random = prng(SEED + 3);
    const BROKEN = ["\\ud800", "\\udfff", "\\udc00\\ud800", "\\u0000", "DE\\ud83d", "\\ud83d\\ude00\\ud800"];
    for (let index = 0; index < 60; index++) {
      const field = random.pick(["vat", "iban", "reference"]);
      const items = Array.from({ length: 1 + random.int(5) }, () => `{"vat":"DE811569869"}`);
      const at = random.int(items.length);
      items[at] = `{"iban":"DE89370400440532013000","${field}":"x${random.pick(BROKEN)}"}`;
      const response = await harness.request("POST", "/batches", {
        key,
        rawBody: `{"items":[${items.join(",")}]}`,
        headers: { "content-type": "application/json" },
      });
      expect({
        status: response.status,
        message: (response.body as { error: { message: string } }).error.message,
      }).toMatchObject({
        status: 400,
        message: expect.stringContaining(`item ${at}: \`${field}\``),
      });
    }
  });

  test("nothing was logged as unhandled", () => {
    expect(sent).toBeGreaterThan(routes.length * HOSTILE_QUERIES.length);
    expect(harness.logs.filter((line) => line.event === "unhandled_error")).toEqual([]);
  });
});
