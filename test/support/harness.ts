import { expect } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { KeyStore } from "../../src/accounts/key-store.ts";
import { planCatalogue } from "../../src/accounts/plans.ts";
import { type App, buildApp } from "../../src/app.ts";
import { BatchItemsPageSchema, BatchSchema } from "../../src/batches/schema.ts";
import { parseConfig } from "../../src/config.ts";
import { pathOf } from "../../src/http/path.ts";
import { routeOf } from "../../src/http/routes.ts";
import { HealthSchema, type PlanId, UsageSchema, ValidateResponseSchema } from "../../src/http/schemas.ts";
import { IbanBuildResponseSchema } from "../../src/iban/build/schema.ts";
import { ErrorResponseSchema } from "../../src/kernel/errors.ts";
import { createLogger, type Logger } from "../../src/kernel/log.ts";
import {
  MonitorCreationSchema,
  MonitorEventPageSchema,
  MonitorPageSchema,
  MonitorSchema,
} from "../../src/monitors/schema.ts";
import { ReadySchema } from "../../src/observability/endpoints.ts";
import { createServices, type Services } from "../../src/services.ts";
import { ValidationRecordSchema } from "../../src/validation/records.ts";
import { StatusSchema } from "../../src/vat/status.ts";
import type { Resolver } from "../../src/webhooks/target.ts";
import { type BrregFake, startBrregFake } from "../fakes/brreg.ts";
import { startUidRegisterFake, type UidRegisterFake } from "../fakes/uid-register.ts";
import { startViesFake, type ViesFake } from "../fakes/vies.ts";
import { deleteWorkOf, testDatabase } from "./database.ts";
import { type ManualClock, manualClock } from "./manual-clock.ts";

/**
 * `schema` with every object closed to fields it does not declare: the service does not strip
 * undeclared fields from its answers (Elysia's normalization is off), so none may be there.
 */
function closed(schema: TSchema): TSchema {
  const copy: Record<string | symbol, unknown> = { ...schema };
  for (const [name, value] of Object.entries(schema)) {
    if (Array.isArray(value)) copy[name] = value.map((item) => (isSchema(item) ? closed(item) : item));
    else if (name === "properties" && value && typeof value === "object")
      copy[name] = Object.fromEntries(
        Object.entries(value as Record<string, TSchema>).map(([field, inner]) => [field, closed(inner)]),
      );
    else if (isSchema(value)) copy[name] = closed(value);
  }
  if (schema.type === "object" && schema.properties && !("additionalProperties" in schema))
    copy.additionalProperties = false;
  return copy as unknown as TSchema;
}

function isSchema(value: unknown): value is TSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const compiled = (schema: TSchema) => TypeCompiler.Compile(closed(schema));
const ERROR_RESPONSE = compiled(ErrorResponseSchema);
const SUCCESS_SCHEMAS: Record<string, ReturnType<typeof compiled>> = {
  "POST /validate": compiled(ValidateResponseSchema),
  "POST /iban/build": compiled(IbanBuildResponseSchema),
  "GET /usage": compiled(UsageSchema),
  "GET /status": compiled(StatusSchema),
  "GET /health": compiled(HealthSchema),
  "GET /ready": compiled(ReadySchema),
  "POST /batches": compiled(BatchSchema),
  "GET /batches/:id": compiled(BatchSchema),
  "DELETE /batches/:id": compiled(BatchSchema),
  "GET /batches/:id/items": compiled(BatchItemsPageSchema),
  "GET /validations/:request_id": compiled(ValidationRecordSchema),
  "POST /monitors": compiled(MonitorCreationSchema),
  "GET /monitors": compiled(MonitorPageSchema),
  "GET /monitors/:id": compiled(MonitorSchema),
  "PATCH /monitors/:id": compiled(MonitorSchema),
  "DELETE /monitors/:id": compiled(MonitorSchema),
  "POST /monitors/:id/check": compiled(MonitorSchema),
  "GET /monitors/:id/events": compiled(MonitorEventPageSchema),
};

export type TestResponse<T = Record<string, unknown>> = {
  status: number;
  headers: Headers;
  body: T;
};

export type Harness = {
  app: App;
  services: Services;
  clock: ManualClock;
  vies: ViesFake;
  /** The Swiss UID register, for CHE numbers. */
  uid: UidRegisterFake;
  /** The Norwegian Register of Legal Entities, for NO numbers. */
  brreg: BrregFake;
  /** Every line the app logged, parsed. */
  logs: Record<string, unknown>[];
  /**
   * Sends a request through the app and checks the response against its contract: JSON,
   * an X-Request-Id, and the schema of the route (2xx) or ErrorResponse (errors).
   */
  request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: {
      key?: string;
      body?: unknown;
      rawBody?: string | Uint8Array | ReadableStream<Uint8Array>;
      headers?: Record<string, string>;
    },
  ): Promise<TestResponse<T>>;
  /** POST /validate with a key. */
  validate<T = Record<string, unknown>>(key: string, body: unknown): Promise<TestResponse<T>>;
  createKey(
    plan?: PlanId,
    overrides?: { quota?: number; rate?: number },
  ): Promise<{ keyId: string; secret: string }>;
  close(): Promise<void>;
};

/** Checks one response against the contract; returns the parsed body. */
export async function checkContract(route: string, response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get("content-type") ?? "").toStartWith("application/json");
  expect(response.headers.get("x-request-id")).toBeTruthy();
  const text = await response.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  const schema = response.status < 300 ? SUCCESS_SCHEMAS[route] : ERROR_RESPONSE;
  if (!schema) throw new Error(`no contract for ${route} ${response.status}`);
  const errors = [...schema.Errors(body)].map((error) => `${error.path}: ${error.message}`);
  if (errors.length > 0)
    throw new Error(`${route} ${response.status} breaks its schema: ${errors.join("; ")}\n${text}`);
  const code = (body.error as { code?: string } | undefined)?.code;
  if (response.status === 429 || code === "member_state_unavailable" || code === "upstream_rate_limited") {
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
  }
  return body;
}

/**
 * An app built with the real wiring — real database (PGlite in memory, or DATABASE_URL),
 * real store (in-process, or REDIS_URL under a fresh key prefix) — against a VIES fake
 * over HTTP, with a manual clock.
 */
export async function startHarness(
  options: {
    env?: Record<string, string>;
    start?: string;
    /** Start the batch workers and webhook deliveries, as the server does once it listens. */
    background?: boolean;
    /** Resolves the hosts of the `webhook_url`s routes are sent; the system's resolver by default. */
    resolve?: Resolver;
  } = {},
): Promise<Harness> {
  const clock = manualClock(Date.parse(options.start ?? "2026-03-15T12:00:00Z"));
  const vies = await startViesFake({ now: () => clock.now() });
  const uid = await startUidRegisterFake();
  const brreg = await startBrregFake();
  const logs: Record<string, unknown>[] = [];
  const log: Logger = createLogger("debug", (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
  const config = parseConfig({
    VIES_BASE_URL: vies.baseUrl,
    CH_UID_BASE_URL: uid.baseUrl,
    NO_BRREG_BASE_URL: brreg.baseUrl,
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    STORE_KEY_PREFIX: `test:${crypto.randomUUID()}:`,
    KEY_CACHE_TTL_MS: "0",
    VAT_DEADLINE_MS: "2000",
    VIES_TIMEOUT_MS: "1000",
    ...options.env,
  });
  const database = await testDatabase();
  const keys = new KeyStore(database);
  await keys.syncPlans(planCatalogue(config.GATEWAY_RATE_LIMIT_PER_MINUTE));
  const services = createServices(config, { clock, log, storage: { database, close: async () => {} } });
  const webhookLookup = { ...services.batches.webhookLookup, resolve: options.resolve };
  const app = buildApp({
    ...services,
    batches: { ...services.batches, webhookLookup },
    monitors: { ...services.monitors, webhookLookup },
  });
  if (options.background) services.startBackgroundWork();

  /** The keys made through `createKey`, whose monitors go at `close`. */
  const keyIds: string[] = [];
  const request: Harness["request"] = async (method, path, requestOptions = {}) => {
    const headers: Record<string, string> = { ...requestOptions.headers };
    if (requestOptions.key !== undefined) headers["x-api-key"] = requestOptions.key;
    let body: string | Uint8Array | ReadableStream<Uint8Array> | undefined = requestOptions.rawBody;
    if (requestOptions.body !== undefined) {
      body = JSON.stringify(requestOptions.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const status = response.status;
    const routePath = pathOf(`http://localhost${path}`);
    const parsed = await checkContract(`${method} ${routeOf(routePath)?.path ?? routePath}`, response);
    return { status, headers: response.headers, body: parsed as never };
  };

  return {
    app,
    services,
    clock,
    vies,
    uid,
    brreg,
    logs,
    request,
    validate: (key, body) => request("POST", "/validate", { key, body }),
    async createKey(plan = "free", overrides = {}) {
      const created = await services.keyAdmin.create({
        plan,
        name: "test",
        quota: overrides.quota ?? null,
        rate: overrides.rate ?? null,
      });
      keyIds.push(created.key_id);
      return { keyId: created.key_id, secret: created.api_key };
    },
    async close() {
      await services.stopBackgroundWork(0);
      await deleteWorkOf(database, keyIds);
      await services.meter.idle();
      await services.store.close();
      await Promise.all([vies.stop(), uid.stop(), brreg.stop()]);
    },
  };
}
