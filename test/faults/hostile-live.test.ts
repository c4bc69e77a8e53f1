import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { HealthSchema, UsageSchema, ValidateResponseSchema } from "../../src/http/schemas.ts";
import { IbanBuildResponseSchema } from "../../src/iban/build/schema.ts";
import { ErrorResponseSchema } from "../../src/kernel/errors.ts";
import { StatusSchema } from "../../src/vat/status.ts";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { prng, type Random, seedFrom } from "../support/prng.ts";
import { rawExchange } from "../support/raw-http.ts";
import {
  IBAN,
  type ServiceProcess,
  sandbox,
  serviceProcess,
  singleJsonLine,
  stopAllServices,
} from "../support/service.ts";

setDefaultTimeout(120_000);

/**
 * Hostile input against a live service process over real TCP: a few thousand random and
 * mutated bodies, headers, methods and paths through `fetch`, and malformed HTTP through a
 * raw socket. Never a 500, never a crash (the same process answers /health afterwards and
 * logged no error), and every JSON answer keeps the contract. Seeded: the seed is printed
 * and HOSTILE_LIVE_SEED replays a run. It runs in both CI runs: on the embedded defaults,
 * and on the real Postgres and Redis when DATABASE_URL and REDIS_URL are set.
 */

const SEED = seedFrom("HOSTILE_LIVE_SEED");
const FETCH_CASES = 2400;
const RAW_CASES = 600;
const PARALLEL = 8;
/** Raw exchanges mostly wait for a server that says nothing more: more of them at once. */
const RAW_PARALLEL = 32;
const VAT = "NL854265259B01";
const MAX_BODY_BYTES = 16_384;
const utf8 = new TextEncoder();

const SUCCESS = [
  ValidateResponseSchema,
  IbanBuildResponseSchema,
  HealthSchema,
  UsageSchema,
  StatusSchema,
].map((schema) => TypeCompiler.Compile(schema));
const ERROR = TypeCompiler.Compile(ErrorResponseSchema);
/** What the HTTP layer itself may answer to malformed HTTP, before our app sees it (no JSON). */
// 413 is not among them: the service refuses large bodies itself, with the error body.
const PROTOCOL_STATUSES = [400, 405, 408, 411, 414, 431, 501, 505];

/** Problems with one answer: a 500, a JSON body off the contract, or JSON that does not parse. */
function problemsOf(label: string, status: number, contentType: string, body: string): string[] {
  const problems: string[] = [];
  if (status === 500 || (status > 500 && status !== 503 && contentType.includes("json"))) {
    problems.push(`${label}: status ${status} ${body.slice(0, 200)}`);
  }
  if (!contentType.startsWith("application/json")) {
    if (!PROTOCOL_STATUSES.includes(status)) {
      problems.push(`${label}: status ${status} without JSON (${contentType}): ${body.slice(0, 120)}`);
    }
    return problems;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [...problems, `${label}: JSON that does not parse: ${body.slice(0, 120)}`];
  }
  // A 2xx is one of the routes' answers, or the OpenAPI document (/swagger/json).
  const isDocument = typeof (parsed as { openapi?: unknown } | null)?.openapi === "string";
  const fits =
    status < 300 ? isDocument || SUCCESS.some((schema) => schema.Check(parsed)) : ERROR.Check(parsed);
  if (!fits) problems.push(`${label}: ${status} body off the contract: ${body.slice(0, 200)}`);
  if (status === 503 && !ERROR.Check(parsed)) problems.push(`${label}: 503 without the error shape`);
  return problems;
}

const TOKEN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~";
const randomToken = (random: Random, max: number) =>
  Array.from({ length: 1 + random.int(max) }, () => random.pick([...TOKEN])).join("");
const printable = (random: Random, length: number) =>
  Array.from({ length }, () => String.fromCharCode(0x20 + random.int(0x5f))).join("");
const randomBytes = (random: Random, length: number) => Uint8Array.from({ length }, () => random.int(256));

/** A random JSON value, with the field names and values the service reacts to. */
function randomJson(random: Random, depth: number): unknown {
  const leaves = [
    IBAN,
    VAT,
    "",
    "DE89 3704 0044 0532 0130 00",
    "GB000000000",
    "XI123456782",
    "EL094259216",
    "🎉".repeat(random.int(30)),
    "\u0000",
    "\ud800",
    "x".repeat(random.int(200)),
    null,
    true,
    0,
    -1,
    1e308,
    Number.MAX_SAFE_INTEGER + 2,
  ];
  if (depth <= 0 || random.int(3) === 0) return random.pick(leaves);
  if (random.int(4) === 0) return Array.from({ length: random.int(4) }, () => randomJson(random, depth - 1));
  const keys = ["vat", "iban", "__proto__", "constructor", "toString", "valueOf", randomToken(random, 8)];
  const object: Record<string, unknown> = {};
  for (let i = 0; i < 1 + random.int(4); i++) {
    Object.defineProperty(object, random.pick(keys), {
      value: randomJson(random, depth - 1),
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return object;
}

/** One to four byte-level mutations: flip, delete, insert, truncate, duplicate. */
function mutate(random: Random, input: Uint8Array): Uint8Array {
  let bytes = [...input];
  for (let round = 0; round < 1 + random.int(4); round++) {
    const at = random.int(bytes.length + 1);
    switch (random.int(5)) {
      case 0:
        bytes = bytes.map((byte, index) => (index === at ? byte ^ (1 << random.int(8)) : byte));
        break;
      case 1:
        bytes = [...bytes.slice(0, at), ...bytes.slice(at + 1 + random.int(8))];
        break;
      case 2:
        bytes = [...bytes.slice(0, at), ...randomBytes(random, 1 + random.int(4)), ...bytes.slice(at)];
        break;
      case 3:
        bytes = bytes.slice(0, at);
        break;
      default:
        bytes = [...bytes.slice(0, at), ...bytes.slice(random.int(bytes.length), at), ...bytes.slice(at)];
    }
  }
  return Uint8Array.from(bytes);
}

type FetchCase = {
  label: string;
  method: string;
  path: string;
  headers: [string, string][];
  body?: Uint8Array;
};

const METHODS: string[] = [
  ...Array.from({ length: 12 }, () => "POST"),
  "GET",
  "PUT",
  "DELETE",
  "PATCH",
  "OPTIONS",
  "HEAD",
];
const PATHS = [
  "/validate",
  "/validate",
  "/validate",
  "/validate",
  "/validate?vat=NL854265259B01",
  "/validate/",
  "/VALIDATE",
  "//validate",
  "/usage",
  "/health",
  "/status",
  "/swagger/json",
  "/%00",
  "/..%2f..%2fetc%2fpasswd",
  "/validate%20",
  "/iban/build",
  "/iban/build/",
  "/IBAN/build",
  "/\u00e9",
];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "",
  "*/*",
];

/** Well-formed bodies of the two routes that take one, to mutate. */
const VALID_BODIES: Record<string, object[]> = {
  "/validate": [{ iban: IBAN }, { vat: VAT }, { vat: VAT, iban: IBAN }],
  "/iban/build": [
    { country_code: "DE", bank_code: "37040044", account_number: "532013000" },
    { country_code: "ES", account_number: "2100 0418 45 0200051332" },
    { country_code: "CZ", account_number: "19-2000145399/0800" },
  ],
};

function fetchCase(random: Random, index: number, key: string): FetchCase {
  const route = random.pick(["/validate", "/validate", "/iban/build"]);
  const valid = utf8.encode(JSON.stringify(random.pick(VALID_BODIES[route] as object[])));
  const family = random.int(6);
  let body: Uint8Array;
  switch (family) {
    case 0:
      body = randomBytes(random, random.pick([0, 1, 7, 300, 5000, MAX_BODY_BYTES + 1, 40_000]));
      break;
    case 1:
      body = mutate(random, valid);
      break;
    case 2:
      body = utf8.encode(JSON.stringify(randomJson(random, 4)) ?? "null");
      break;
    case 3: {
      const depth = random.pick([10, 1000, 100_000]);
      body = utf8.encode(`{"iban":${"[".repeat(depth)}${"]".repeat(random.int(2) ? depth : 0)}}`);
      break;
    }
    default:
      body = valid;
  }
  const headers: [string, string][] = [];
  const credential = random.int(10);
  if (credential < 7) headers.push(["x-api-key", key]);
  else if (credential === 7)
    headers.push(["authorization", `Bearer ${random.pick([key, printable(random, 50), ""])}`]);
  else if (credential === 8)
    headers.push(["x-api-key", random.pick([printable(random, 60), `vsk_${"A".repeat(43)}`, ""])]);
  headers.push(["content-type", random.pick(CONTENT_TYPES)]);
  for (let i = 0; i < random.int(4); i++)
    headers.push([randomToken(random, 30), printable(random, random.int(100))]);
  if (random.int(8) === 0)
    headers.push(["content-encoding", random.pick(["gzip", "br", "deflate", "identity", "x"])]);
  if (random.int(8) === 0) headers.push(["x-gateway-user", printable(random, random.int(300))]);
  if (random.int(20) === 0) headers.push(["x-huge", "h".repeat(random.pick([8_000, 20_000, 70_000]))]);
  if (random.int(10) === 0) {
    for (let i = 0; i < random.pick([50, 200]); i++) headers.push([`x-many-${i}`, printable(random, 20)]);
  }
  const method = random.pick(METHODS);
  const path = random.int(3) === 0 ? random.pick(PATHS) : route;
  return {
    label: `fetch #${index} family ${family}: ${method} ${path} ${new TextDecoder().decode(body.slice(0, 60))}`,
    method,
    path,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : body,
  };
}

/** Requests fetch cannot send: broken framing, header syntax, request lines, bytes. */
function rawCase(random: Random, index: number, key: string): { label: string; bytes: Uint8Array } {
  const json = JSON.stringify({ iban: IBAN });
  const head = (lines: string[], end = "\r\n") => lines.map((line) => line + end).join("") + end;
  const standard = [
    "POST /validate HTTP/1.1",
    "Host: 127.0.0.1",
    `X-API-Key: ${key}`,
    "Content-Type: application/json",
    "Connection: close",
  ];
  const family = random.int(9);
  let text: string | Uint8Array;
  switch (family) {
    case 0: {
      const length = random.pick([
        "-1",
        "99999999999999999999999",
        "1e3",
        "0x10",
        " 12",
        "12, 13",
        "",
        "NaN",
        "+5",
        String(json.length - 5),
        String(json.length + 50),
        String(2 ** 53),
      ]);
      text = head([...standard, `Content-Length: ${length}`]) + json;
      break;
    }
    case 1:
      text =
        head([...standard, `Content-Length: ${json.length}`, `Content-Length: ${random.int(100)}`]) + json;
      break;
    case 2: {
      const size = random.pick([
        "zz",
        "-1",
        "FFFFFFFFFFFFFFFF",
        `${json.length.toString(16)};ext=1`,
        "0",
        " 5",
      ]);
      const tail = random.pick(["0\r\n\r\n", "", "0\r\n", "5\r\nabc"]);
      const lengthToo = random.int(2) ? [`Content-Length: ${json.length}`] : [];
      const chunked = head([...standard, "Transfer-Encoding: chunked", ...lengthToo]);
      text = `${chunked}${size}\r\n${json}\r\n${tail}`;
      break;
    }
    case 3: {
      const line = random.pick([
        "POST /validate HTTP/2.0",
        "POST /validate HTTP/0.9",
        "post /validate HTTP/1.1",
        "POST  /validate  HTTP/1.1",
        "POST /validate",
        "POST http://127.0.0.1/validate HTTP/1.1",
        "POST * HTTP/1.1",
        `POST /${"a".repeat(random.pick([100, 10_000, 100_000]))} HTTP/1.1`,
        `${randomToken(random, 20)} /validate HTTP/1.1`,
        "",
      ]);
      text = head([line, ...standard.slice(1), `Content-Length: ${json.length}`]) + json;
      break;
    }
    case 4: {
      const bad = random.pick([
        "NoColonHere",
        "Bad Name: x",
        "X-Space : y",
        " folded continuation",
        "X-Nul: a\u0000b",
        `X-Huge: ${"v".repeat(random.pick([10_000, 100_000]))}`,
        ":empty-name",
        "X-Api-Key: second",
      ]);
      text = head([...standard, bad, `Content-Length: ${json.length}`]) + json;
      break;
    }
    case 5: {
      const prefix = utf8.encode(head([...standard.slice(0, 4), `Content-Length: ${json.length}`]));
      const bytes = new Uint8Array([
        ...prefix.slice(0, 20 + random.int(prefix.length - 20)),
        ...randomBytes(random, 1 + random.int(8)),
      ]);
      text = new Uint8Array([...bytes, ...prefix.slice(bytes.length), ...utf8.encode(json)]);
      break;
    }
    case 6:
      text = mutate(random, utf8.encode(head([...standard, `Content-Length: ${json.length}`]) + json));
      break;
    case 7: {
      const one =
        head(["POST /validate HTTP/1.1", "Host: x", `X-API-Key: ${key}`, `Content-Length: ${json.length}`]) +
        json;
      text = one + one + random.pick(["", "garbage\r\n\r\n", one.slice(0, random.int(one.length))]);
      break;
    }
    default:
      text = randomBytes(random, random.pick([1, 16, 300, 5000]));
  }
  const bytes = typeof text === "string" ? utf8.encode(text) : text;
  return {
    label: `raw #${index} family ${family}: ${JSON.stringify(new TextDecoder().decode(bytes.slice(0, 80)))}`,
    bytes,
  };
}

/** Runs `work` over `items` with at most `parallel` at a time. */
async function pool<T>(items: T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

describe("hostile input against a live service process", () => {
  const box = sandbox();
  let vies: ViesFake;
  let service: ServiceProcess;
  let key: string;
  let dataDir: string;

  beforeAll(async () => {
    console.log(`hostile live seed: ${SEED} (replay with HOSTILE_LIVE_SEED=${SEED})`);
    vies = await startViesFake();
    dataDir = box.tempDir();
    const realServers = process.env.DATABASE_URL
      ? {
          DATABASE_URL: process.env.DATABASE_URL,
          ...(process.env.REDIS_URL && { REDIS_URL: process.env.REDIS_URL }),
        }
      : {};
    service = serviceProcess({
      ...realServers,
      STORE_KEY_PREFIX: `test:hostile-live:${crypto.randomUUID()}:`,
      DATA_DIR: dataDir,
      VIES_BASE_URL: vies.baseUrl,
    });
    await service.start();
    const created = await box.keys(
      ["create", "--plan", "pro", "--quota", "100000000", "--rate", "100000000"],
      service.env,
    );
    expect(created).toMatchObject({ code: 0 });
    key = (singleJsonLine(created.stdout) as { api_key: string }).api_key;
  });
  afterAll(async () => {
    await stopAllServices();
    await vies?.stop();
    await box.cleanup();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test(`${FETCH_CASES} random and mutated requests through fetch`, async () => {
    const random = prng(SEED);
    const cases = Array.from({ length: FETCH_CASES }, (_, index) => fetchCase(random, index, key));
    const problems: string[] = [];
    const statuses: Record<string, number> = {};
    await pool(cases, PARALLEL, async (hostile) => {
      try {
        const response = await fetch(`${service.url}${hostile.path}`, {
          method: hostile.method,
          headers: hostile.headers,
          body: hostile.body,
          signal: AbortSignal.timeout(10_000),
        });
        const text = await response.text();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        const contentType = response.headers.get("content-type") ?? "";
        if (hostile.method !== "HEAD") {
          problems.push(...problemsOf(hostile.label, response.status, contentType, text));
        } else if (response.status >= 500) {
          // A HEAD answer has no body to check, only its status.
          problems.push(`${hostile.label}: status ${response.status}`);
        }
      } catch (error) {
        const message = (error as Error).message;
        statuses[`client: ${(error as Error).name}`] =
          (statuses[`client: ${(error as Error).name}`] ?? 0) + 1;
        // fetch refuses some header values itself; anything else (a reset, a timeout) is the service's.
        if (!(error instanceof TypeError && /header/i.test(message)))
          problems.push(`${hostile.label}: ${message}`);
      }
    });
    console.log(`fetch cases by status: ${JSON.stringify(statuses)}`);
    expect(problems).toEqual([]);
    expect(statuses["200"]).toBeGreaterThan(100);
  });

  test(`${RAW_CASES} malformed HTTP requests through a raw socket`, async () => {
    const random = prng(SEED ^ 0x7a7);
    const cases = Array.from({ length: RAW_CASES }, (_, index) => rawCase(random, index, key));
    const problems: string[] = [];
    const statuses: Record<string, number> = {};
    await pool(cases, RAW_PARALLEL, async (hostile) => {
      const exchange = await rawExchange(service.port, hostile.bytes, { waitMs: 1500, quietMs: 200 });
      if (exchange.responses.length === 0) {
        const outcome = exchange.closed ? "closed without an answer" : "no answer, left open";
        statuses[outcome] = (statuses[outcome] ?? 0) + 1;
        if (exchange.leftover)
          problems.push(
            `${hostile.label}: unreadable answer ${JSON.stringify(exchange.leftover.slice(0, 120))}`,
          );
      }
      for (const response of exchange.responses) {
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        problems.push(
          ...problemsOf(
            hostile.label,
            response.status,
            response.headers["content-type"] ?? "",
            response.body,
          ),
        );
      }
    });
    console.log(`raw cases by status: ${JSON.stringify(statuses)}`);
    expect(problems).toEqual([]);
    expect(statuses["200"]).toBeGreaterThan(0);
  });

  test("the same process is alive, answers /health and a valid request, and logged no error", async () => {
    const pid = service.pid();
    if (pid === null) throw new Error(`the service process is gone:\n${service.tail()}`);
    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    const answer = await fetch(`${service.url}/validate`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ iban: IBAN }),
    });
    expect(answer.status).toBe(200);
    expect(service.pid()).toBe(pid);
    expect(service.errors).toEqual([]);
  });

  // Requests this fuzz found to break the service (see docs/reliability.md), kept as fixed
  // cases. Each is followed by a look at the process; one that ends it is reported and the
  // process started again for the next.
  test("requests found by this fuzz: no Host, a Host that is not a URL, /validate/, HEAD /usage", async () => {
    const json = JSON.stringify({ iban: IBAN });
    const post = (line: string, headers: string[]) => {
      const lines = [line, ...headers, `X-API-Key: ${key}`, "Content-Type: application/json"];
      return `${lines.map((header) => `${header}\r\n`).join("")}Content-Length: ${json.length}\r\n\r\n${json}`;
    };
    const cases: [string, string][] = [
      ["GET /health, HTTP/1.0 without Host", "GET /health HTTP/1.0\r\n\r\n"],
      ["GET /health with Host: a b", "GET /health HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n"],
      ["POST /validate, HTTP/1.0 without Host", post("POST /validate HTTP/1.0", [])],
      ["POST /validate/", post("POST /validate/ HTTP/1.1", ["Host: x", "Connection: close"])],
      ["HEAD /usage", `HEAD /usage HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nConnection: close\r\n\r\n`],
      [
        "a 2 MB body announced (over Bun's own default limit), a little of it sent",
        `POST /validate HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n{"iban":`,
      ],
    ];
    const problems: string[] = [];
    const statuses: Record<string, number> = {};
    for (const [label, request] of cases) {
      const exchange = await rawExchange(service.port, utf8.encode(request));
      statuses[label] = exchange.responses[0]?.status ?? 0;
      for (const response of exchange.responses) {
        problems.push(
          ...problemsOf(label, response.status, response.headers["content-type"] ?? "", response.body),
        );
      }
      // A HEAD answer announces a body it does not send: only its status line is read.
      const headStatus = /^HTTP\/1\.[01] (\d{3})/.exec(exchange.leftover)?.[1];
      if (headStatus && Number(headStatus) >= 500) problems.push(`${label}: status ${headStatus}`);
      if (exchange.responses.length === 0 && !headStatus) problems.push(`${label}: no answer`);
      await Bun.sleep(200);
      if (service.pid() === null) {
        problems.push(`${label}: the process ended:\n${service.tail().split("\n").slice(-12).join("\n")}`);
        await service.start();
      }
    }
    expect(problems).toEqual([]);
    expect(statuses["a 2 MB body announced (over Bun's own default limit), a little of it sent"]).toBe(413);
  });
});
