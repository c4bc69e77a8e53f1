import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { sql } from "drizzle-orm";
import { CSV_LIMITS } from "../../src/batches/input.ts";
import { ROUTES } from "../../src/http/routes.ts";
import { connectPostgres } from "../../src/kernel/db.ts";
import {
  IBAN,
  type ServiceProcess,
  sandbox,
  serviceProcess,
  singleJsonLine,
  stopAllServices,
} from "../support/service.ts";
import { danishNumbers } from "../support/vat-numbers.ts";

setDefaultTimeout(120_000);

/**
 * Every request does bounded work (docs/reliability.md, "Bounded work per request"): for each
 * route, the worst input its limits allow, sent to a real service process, while `/health` is
 * asked again and again — and answers within a second every time. On the embedded database
 * (whose statements run on the server's own thread) always, and on Postgres + Redis when
 * DATABASE_URL is set. A route without a case here fails the first test: its bound must be
 * named before it ships.
 */

const HEALTH_BOUND_MS = 1000;
const BODY_BYTES = 16_384;
const BATCH_BYTES = 4 * 1024 * 1024;
const BATCH_ITEMS = 10_000;
const PAGE = 1000;
const box = sandbox();

type Send = (
  method: string,
  path: string,
  init?: { body?: string; headers?: Record<string, string> },
) => Promise<Response>;

/** A JSON object body beginning with `fields`, padded to the body limit with what costs the most to parse: arrays nested deep. */
function paddedBody(fields: string): string {
  const head = `{${fields},"x":`;
  const depth = Math.floor((BODY_BYTES - head.length - 1) / 2);
  return `${head}${"[".repeat(depth)}${"]".repeat(depth)}}`;
}

const worstValidateBody = () => paddedBody(`"iban":"${IBAN}"`);
/** A German account: its bank's IBAN rule, then its check method, then validation and billing. */
const worstBuildBody = () =>
  paddedBody(`"country_code":"DE","bank_code":"37040044","account_number":"532013000"`);

/** 10,000 items, every field at its longest. */
function worstJsonBatch(): string {
  const item = JSON.stringify({
    vat: `DE${"9".repeat(38)}`,
    iban: `DE${"8".repeat(58)}`,
    reference: "r".repeat(200),
  });
  const body = `{"items":[${Array(BATCH_ITEMS).fill(item).join(",")}]}`;
  expect(body.length).toBeLessThanOrEqual(BATCH_BYTES);
  return body;
}

/** 10,000 rows under a header of the most columns allowed, as wide as the body limit lets them be. */
function worstCsvBatch(): string {
  const header = [
    "vat",
    "iban",
    "reference",
    ...Array.from({ length: CSV_LIMITS.maxFields - 3 }, (_, i) => `c${i}`),
  ];
  const fixed = `DE${"9".repeat(38)},DE${"8".repeat(58)},${"r".repeat(200)}${",".repeat(CSV_LIMITS.maxFields - 3)}`;
  const room = Math.floor((BATCH_BYTES - header.join(",").length - 2) / BATCH_ITEMS) - fixed.length - 2;
  const row = `${fixed}${"x".repeat(Math.max(0, room))}`;
  const body = `${header.join(",")}\r\n${Array(BATCH_ITEMS).fill(row).join("\r\n")}\r\n`;
  expect(body.length).toBeLessThanOrEqual(BATCH_BYTES);
  return body;
}

/** A number's item with every other field at its longest that 10,000 of them fit in 4 MiB. */
function monitorItem(vat: string, interval = 365): Record<string, unknown> {
  return {
    vat,
    reference: "r".repeat(200),
    interval_days: interval,
    match: { name: "n".repeat(40), street: "s".repeat(30), city: "c".repeat(20) },
  };
}

/** 10,000 numbers to watch, none watched yet, as JSON within 4 MiB. */
function worstJsonWatchList(numbers: string[]): string {
  const body = JSON.stringify({ items: numbers.map((vat) => monitorItem(vat)) });
  expect(body.length).toBeLessThanOrEqual(BATCH_BYTES);
  return body;
}

/** 10,000 numbers to watch as CSV rows under a header of the most columns allowed. */
function worstCsvWatchList(numbers: string[]): string {
  const header = [
    "vat",
    "reference",
    "interval_days",
    "match_name",
    "match_street",
    "match_postcode",
    "match_city",
    "match_company_type",
    ...Array.from({ length: CSV_LIMITS.maxFields - 8 }, (_, i) => `c${i}`),
  ];
  const fixed = `,${"r".repeat(200)},365,${"n".repeat(60)},${"s".repeat(40)},1017 HL,${"c".repeat(30)},BV`;
  const rows = numbers.map((vat) => `${vat}${fixed}${",".repeat(CSV_LIMITS.maxFields - 8)}`);
  const body = `${header.join(",")}\r\n${rows.join("\r\n")}\r\n`;
  expect(body.length).toBeLessThanOrEqual(BATCH_BYTES);
  return body;
}

/**
 * Runs `work` while `/health` is asked one request after another; the latencies of those
 * answers. At least one is asked while the work runs.
 */
async function healthDuring(url: string, work: () => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let running = true;
  const probe = (async () => {
    do {
      const started = performance.now();
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      latencies.push(performance.now() - started);
      await Bun.sleep(20);
    } while (running);
  })();
  try {
    await work();
  } finally {
    running = false;
    await probe;
  }
  return latencies;
}

/** `count` loops sending `request` for `ms`. */
async function loops(count: number, ms: number, request: () => Promise<Response>, statuses: number[]) {
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: count }, async () => {
      while (performance.now() < until) {
        const response = await request();
        await response.arrayBuffer();
        expect(statuses).toContain(response.status);
      }
    }),
  );
}

const CONFIGURATIONS = [
  { name: "embedded (PGlite)", env: {} as Record<string, string> },
  ...(process.env.DATABASE_URL
    ? [
        {
          name: "Postgres + Redis",
          env: {
            DATABASE_URL: process.env.DATABASE_URL,
            ...(process.env.REDIS_URL && { REDIS_URL: process.env.REDIS_URL }),
          } as Record<string, string>,
        },
      ]
    : []),
];

afterAll(async () => {
  await stopAllServices();
  await box.cleanup();
});

for (const configuration of CONFIGURATIONS) {
  describe(`the worst input of every route, ${configuration.name}: /health within ${HEALTH_BOUND_MS} ms`, () => {
    let service: ServiceProcess;
    let send: Send;
    let dataDir: string;
    let keyId = "";
    /** The routes tested below, as `METHOD /path`. */
    const covered = new Set<string>();

    /** `work` is the worst case of `route`; `before` and `after` prepare and tidy, unmeasured. */
    const worst = (
      route: string,
      name: string,
      work: () => Promise<void>,
      around: { before?: () => Promise<void>; after?: () => Promise<void> } = {},
    ) =>
      test(`${route}: ${name}`, async () => {
        covered.add(route);
        await around.before?.();
        const latencies = await healthDuring(service.url, work);
        await around.after?.();
        console.log(
          `${configuration.name}, ${route}, ${name}: /health max ${Math.round(Math.max(...latencies))} ms over ${latencies.length}`,
        );
        expect(latencies.length).toBeGreaterThan(0);
        expect(Math.max(...latencies)).toBeLessThan(HEALTH_BOUND_MS);
      });

    /** Creates a batch (202) and returns its id. */
    const created = async (body: string, contentType: string) => {
      const response = await send("POST", "/batches", { body, headers: { "content-type": contentType } });
      const text = await response.text();
      expect({ status: response.status, text: text.slice(0, 200) }).toMatchObject({ status: 202 });
      return (JSON.parse(text) as { id: string }).id;
    };
    const cancel = async (id: string) => expect((await send("DELETE", `/batches/${id}`)).status).toBe(200);

    beforeAll(async () => {
      dataDir = box.tempDir();
      service = serviceProcess({
        ...configuration.env,
        STORE_KEY_PREFIX: `test:bounded:${crypto.randomUUID()}:`,
        DATA_DIR: dataDir,
        METRICS_TOKEN: "bounded-work-metrics-token",
        // The work a request does is measured here; the batch workers' and the monitors'
        // checker's (which a created batch or monitor wakes) by their own tests. A few items at a
        // time keeps theirs out of these numbers.
        BATCH_CONCURRENCY: "16",
        MONITOR_CONCURRENCY: "4",
      });
      await service.start();
      const made = await box.keys(
        ["create", "--plan", "pro", "--quota", "100000000", "--rate", "100000000"],
        service.env,
      );
      expect(made).toMatchObject({ code: 0 });
      const issued = singleJsonLine(made.stdout) as { api_key: string; key_id: string };
      const key = issued.api_key;
      keyId = issued.key_id;
      send = (method, path, init = {}) =>
        fetch(`${service.url}${path}`, {
          method,
          headers: { "x-api-key": key, ...init.headers },
          body: init.body,
          signal: AbortSignal.timeout(60_000),
        });
    });
    afterAll(async () => {
      await service?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      // The 20,000 monitors made here stay due forever on a shared Postgres, where later tests'
      // instances would check them.
      if (configuration.env.DATABASE_URL) {
        const database = connectPostgres(configuration.env.DATABASE_URL);
        await database.rows(sql`DELETE FROM monitors WHERE key_id = ${keyId}`);
        await database.close();
      }
    });

    worst("POST /validate", "bodies of 16 KiB nested 8,000 deep, 8 at a time for 1 s", async () => {
      const body = worstValidateBody();
      await loops(8, 1000, () => send("POST", "/validate", { body }), [200]);
    });

    worst(
      "POST /validate",
      "the same, each with an Idempotency-Key of its own (claimed, compared, kept)",
      async () => {
        const body = worstValidateBody();
        await loops(
          8,
          1000,
          () => send("POST", "/validate", { body, headers: { "idempotency-key": crypto.randomUUID() } }),
          [200],
        );
      },
    );

    worst(
      "POST /iban/build",
      "German accounts in bodies of 16 KiB nested 8,000 deep, 8 at a time for 1 s",
      async () => {
        const body = worstBuildBody();
        await loops(8, 1000, () => send("POST", "/iban/build", { body }), [200]);
      },
    );

    worst("GET /usage", "8 at a time for 1 s", async () => {
      await loops(8, 1000, () => send("GET", "/usage"), [200]);
    });

    let batch = "";
    const cancelIt = { after: async () => cancel(batch) };
    worst(
      "POST /batches",
      "4 MiB of JSON: 10,000 items, every field at its longest",
      async () => {
        batch = await created(worstJsonBatch(), "application/json");
      },
      cancelIt,
    );

    worst(
      "POST /batches",
      "the same with an Idempotency-Key, then its replay",
      async () => {
        const body = worstJsonBatch();
        const headers = { "content-type": "application/json", "idempotency-key": crypto.randomUUID() };
        const first = await send("POST", "/batches", { body, headers });
        const again = await send("POST", "/batches", { body, headers });
        batch = ((await first.json()) as { id: string }).id;
        expect({ first: first.status, again: again.status }).toEqual({ first: 202, again: 202 });
        expect(((await again.json()) as { id: string }).id).toBe(batch);
      },
      cancelIt,
    );

    worst(
      "POST /batches",
      `4 MiB of CSV: 10,000 rows under ${CSV_LIMITS.maxFields} columns`,
      async () => {
        batch = await created(worstCsvBatch(), "text/csv");
      },
      cancelIt,
    );

    worst("DELETE /batches/:id", "cancelling 10,000 pending items", () => cancel(batch), {
      before: async () => {
        batch = await created(worstJsonBatch(), "application/json");
      },
    });

    let finished = "";
    worst("GET /batches/:id", "a batch of 1,000 IBANs, polled until done", async () => {
      finished = await created(
        JSON.stringify({ items: Array(PAGE).fill({ iban: IBAN }) }),
        "application/json",
      );
      const deadline = Date.now() + 60_000;
      for (;;) {
        const batch = (await (await send("GET", `/batches/${finished}`)).json()) as { status: string };
        if (batch.status === "completed") break;
        expect(Date.now()).toBeLessThan(deadline);
        await Bun.sleep(100);
      }
    });

    worst(
      "GET /batches/:id/items",
      `pages of ${PAGE} answered items, JSON and CSV, 4 at a time for 1 s`,
      async () => {
        let csv = false;
        await loops(
          4,
          1000,
          () => {
            csv = !csv;
            return send("GET", `/batches/${finished}/items?limit=${PAGE}`, {
              headers: csv ? { accept: "text/csv" } : {},
            });
          },
          [200],
        );
      },
    );

    /** Creates monitors (201) from a list body; their ids. */
    const watched = async (body: string, contentType: string) => {
      const response = await send("POST", "/monitors", { body, headers: { "content-type": contentType } });
      const text = await response.text();
      expect({ status: response.status, text: text.slice(0, 200) }).toMatchObject({ status: 201 });
      const created = JSON.parse(text) as { monitors: { id: string }[]; created: number };
      expect(created.created).toBe(BATCH_ITEMS);
      return created.monitors.map((monitor) => monitor.id);
    };
    const numbers = danishNumbers(3 * BATCH_ITEMS);
    let monitors: string[] = [];
    worst("POST /monitors", "4 MiB of JSON: 10,000 new numbers, every field long", async () => {
      monitors = await watched(worstJsonWatchList(numbers.slice(0, BATCH_ITEMS)), "application/json");
    });

    worst(
      "POST /monitors",
      `4 MiB of CSV: 10,000 new numbers under ${CSV_LIMITS.maxFields} columns`,
      async () => {
        await watched(worstCsvWatchList(numbers.slice(BATCH_ITEMS, 2 * BATCH_ITEMS)), "text/csv");
      },
    );

    worst("POST /monitors", "10,000 numbers watched already: each answered as it is", async () => {
      const response = await send("POST", "/monitors", {
        body: worstJsonWatchList(numbers.slice(0, BATCH_ITEMS)),
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    });

    worst(
      "GET /monitors",
      `pages of ${PAGE} of 20,000 monitors, all and by status, 4 at a time for 1 s`,
      async () => {
        let turn = 0;
        await loops(
          4,
          1000,
          () => {
            turn += 1;
            const query = ["", "&status=active", "&status=paused"][turn % 3];
            return send("GET", `/monitors?limit=${PAGE}${query}`);
          },
          [200],
        );
      },
    );

    worst("GET /monitors/:id", "8 at a time for 1 s", async () => {
      let turn = 0;
      await loops(8, 1000, () => send("GET", `/monitors/${monitors[turn++ % monitors.length]}`), [200]);
    });

    worst("PATCH /monitors/:id", "every field at once, 8 at a time for 1 s", async () => {
      let turn = 0;
      await loops(
        8,
        1000,
        () => {
          turn += 1;
          const body = JSON.stringify({
            interval_days: 1 + (turn % 365),
            reference: "p".repeat(200),
            // A public address, written as one: no DNS lookup in the measurement. No event is
            // ever sent there: VIES is unreachable, so no check of these monitors is answered.
            webhook_url: `https://93.184.215.14/${"p".repeat(2000)}`,
            status: turn % 2 === 0 ? "paused" : "active",
          });
          return send("PATCH", `/monitors/${monitors[turn % 100]}`, { body });
        },
        [200],
      );
    });

    worst("POST /monitors/:id/check", "8 at a time for 1 s", async () => {
      let turn = 0;
      await loops(8, 1000, () => send("POST", `/monitors/${monitors[100 + (turn++ % 100)]}/check`), [202]);
    });

    worst("GET /monitors/:id/events", `pages of ${PAGE}, 8 at a time for 1 s`, async () => {
      let turn = 0;
      await loops(
        8,
        1000,
        () => send("GET", `/monitors/${monitors[turn++ % 200]}/events?limit=${PAGE}`),
        [200],
      );
    });

    worst("DELETE /monitors/:id", "8 at a time for 1 s", async () => {
      let turn = 0;
      await loops(8, 1000, () => send("DELETE", `/monitors/${monitors[1000 + turn++]}`), [200]);
    });

    worst("GET /validations/:request_id", "8 at a time for 1 s", async () => {
      await loops(8, 1000, () => send("GET", `/validations/${finished}.0`), [404]);
    });

    worst("GET /status", "VIES unreachable, 8 at a time for 1 s", async () => {
      await loops(8, 1000, () => send("GET", "/status"), [503]);
    });

    worst("GET /health", "8 at a time for 1 s", async () => {
      await loops(8, 1000, () => send("GET", "/health"), [200]);
    });

    worst("GET /ready", "8 at a time for 1 s", async () => {
      await loops(8, 1000, () => send("GET", "/ready"), [200]);
    });

    // An operator's scraper, not a key: one scrape after another.
    worst("GET /metrics", "one scrape after another for 1 s", async () => {
      const headers = { authorization: "Bearer bounded-work-metrics-token" };
      await loops(1, 1000, () => send("GET", "/metrics", { headers }), [200]);
    });

    worst("GET /swagger", "8 at a time for 1 s", async () => {
      await loops(8, 1000, () => send("GET", "/swagger"), [200]);
    });

    worst("GET /swagger/json", "8 at a time for 1 s", async () => {
      await loops(8, 1000, () => send("GET", "/swagger/json"), [200]);
    });

    worst("GET /console", "8 at a time for 1 s", async () => {
      await loops(8, 1000, () => send("GET", "/console"), [200]);
    });

    worst(
      "GET /console/assets/:name",
      "the page's script, its largest asset, 8 at a time for 1 s",
      async () => {
        const page = await (await send("GET", "/console")).text();
        const script = /\/console\/assets\/[^"]+\.js/.exec(page)?.[0] ?? "/console/assets/missing.js";
        await loops(8, 1000, () => send("GET", script), [200]);
      },
    );

    test("every route the service serves has its worst case above", () => {
      const routes = ROUTES.flatMap((route) => route.methods.map((method) => `${method} ${route.path}`));
      expect([...covered].sort()).toEqual([...new Set(routes)].sort());
    });
  });
}
