import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ERROR_STATUS, type ErrorCode } from "../../src/kernel/errors.ts";
import { type Harness, startHarness } from "../support/harness.ts";

/**
 * The OpenAPI document at /swagger/json against the service specification: its routes,
 * statuses, security and models are compared with tables written here from the spec.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  maxLength?: number;
  minProperties?: number;
};
type Media = { schema: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Response = {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, Media>;
};
type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; examples?: Record<string, unknown> }[];
  requestBody?: { required?: boolean; content?: Record<string, Media> };
  responses: Record<string, Response>;
};
type Document = {
  openapi: string;
  tags?: { name: string; description?: string }[];
  webhooks?: Record<string, { post: Operation }>;
  info: { version: string; title: string };
  security?: unknown;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Record<string, string>> };
};

const MODEL = "#/components/schemas/";
const GATEWAY_SECRET = "gateway-shared-secret-0123456789";

/** A route's answers: its success status with that model, the rest in the error shape. */
function answers(success: number, model: string, ...errors: number[]): Record<string, string> {
  // `default`: what any route may also answer (404, 405, 500), in the error shape.
  const table: Record<string, string> = { [success]: model, default: "ErrorResponse" };
  for (const status of errors) table[status] = "ErrorResponse";
  return table;
}

/** Method, path, and every status with the model of its body (spec: Endpoints, Status responses). */
const ROUTES: Record<string, Record<string, string>> = {
  // 409 and 422: the Idempotency-Key's own refusals (issue 19).
  "POST /validate": answers(200, "ValidateResponse", 400, 401, 403, 409, 413, 422, 429, 503),
  "GET /usage": answers(200, "Usage", 401, 403, 429, 503),
  "GET /status": answers(200, "ViesStatus", 503),
  "GET /health": answers(200, "Health"),
  // Beyond the spec: bulk validation and the records of VAT checks.
  "POST /batches": answers(202, "Batch", 400, 401, 403, 409, 413, 422, 429, 503),
  "GET /batches/{id}": answers(200, "Batch", 401, 403, 404, 429, 503),
  "DELETE /batches/{id}": answers(200, "Batch", 401, 403, 404, 429, 503),
  "GET /batches/{id}/items": answers(200, "BatchItemsPage", 400, 401, 403, 404, 429, 503),
  "GET /validations/{request_id}": answers(200, "ValidationRecord", 401, 403, 404, 429, 503),
  // Issue 19: watched numbers. A number already watched is answered 200, a new one 201.
  "POST /monitors": {
    ...answers(201, "MonitorCreation", 400, 401, 403, 409, 413, 422, 429, 503),
    200: "MonitorCreation",
  },
  "GET /monitors": answers(200, "MonitorPage", 400, 401, 403, 429, 503),
  "GET /monitors/{id}": answers(200, "Monitor", 401, 403, 404, 429, 503),
  "PATCH /monitors/{id}": answers(200, "Monitor", 400, 401, 403, 404, 413, 429, 503),
  "DELETE /monitors/{id}": answers(200, "Monitor", 401, 403, 404, 429, 503),
  "POST /monitors/{id}/check": answers(202, "Monitor", 401, 403, 404, 409, 422, 429, 503),
  "GET /monitors/{id}/events": answers(200, "MonitorEventPage", 400, 401, 403, 404, 429, 503),
  // Issue 17: IBANs built from domestic account numbers.
  "POST /iban/build": answers(200, "IbanBuildResponse", 400, 401, 403, 409, 413, 422, 429, 503),
};
const PROTECTED = new Set([
  "POST /validate",
  "POST /iban/build",
  "GET /usage",
  "POST /batches",
  "GET /batches/{id}",
  "DELETE /batches/{id}",
  "GET /batches/{id}/items",
  "GET /validations/{request_id}",
  "POST /monitors",
  "GET /monitors",
  "GET /monitors/{id}",
  "PATCH /monitors/{id}",
  "DELETE /monitors/{id}",
  "POST /monitors/{id}/check",
  "GET /monitors/{id}/events",
]);
/** Responses that may also come as CSV. */
const CSV_RESPONSES = new Set(["GET /batches/{id}/items 200"]);

/**
 * The spec's resource tables: each field with its type (`|null` where the spec says nullable;
 * a model name where the field is that model). A `?` marks the fields the spec leaves optional;
 * every other field is required ("Nullable means the field is present").
 */
const MODELS: Record<string, Record<string, string>> = {
  // `match` and its models: issue 18 (name and address matching).
  ValidateRequest: { "vat?": "string", "iban?": "string", "match?": "MatchRequest" },
  MatchRequest: {
    "name?": "string",
    "street?": "string",
    "postcode?": "string",
    "city?": "string",
    "company_type?": "string",
  },
  MatchResult: {
    overall: "string",
    "name?": "FieldMatch",
    "street?": "FieldMatch",
    "postcode?": "FieldMatch",
    "city?": "FieldMatch",
    "company_type?": "FieldMatch",
  },
  FieldMatch: { result: "string", by: "string|null" },
  ValidateResponse: {
    request_id: "string",
    "vat?": "VatResult",
    "iban?": "IbanResult",
    billable: "boolean",
    usage: "UsageBlock",
  },
  VatResult: {
    input: "string",
    valid: "boolean|null",
    vat_number: "string|null",
    country_code: "string|null",
    country_name: "string|null",
    name: "string|null",
    address: "string|null",
    source: "string|null",
    cached: "boolean",
    stale: "boolean",
    checked_at: "date-time|null",
    consultation_number: "string|null",
    error: "Error|null",
    warning: "Error|null",
    match: "MatchResult|null",
  },
  IbanResult: {
    input: "string",
    valid: "boolean|null",
    iban: "string|null",
    iban_formatted: "string|null",
    country_code: "string|null",
    check_digits: "string|null",
    bban: "string|null",
    bank_code: "string|null",
    branch_code: "string|null",
    account_number: "string|null",
    sepa: "boolean|null",
    bank: "object|null",
    national_check: "string",
    source: "string",
    cached: "boolean",
    error: "Error|null",
    warning: "Error|null",
  },
  UsageBlock: {
    plan: "string",
    used: "integer",
    limit: "integer|null",
    remaining: "integer|null",
    reset_at: "date-time",
  },
  Usage: {
    plan: "string",
    plan_name: "string",
    price_usd_per_month: "number",
    monthly_quota: "integer|null",
    used: "integer",
    remaining: "integer|null",
    period_start: "date-time",
    reset_at: "date-time",
    rate_limit_per_minute: "integer",
    requests_this_month: "integer",
    key_id: "string|null",
  },
  Error: { code: "string", message: "string" },
  ErrorResponse: { error: "Error" },
  // Issue 19: the monitor and its events, field for field.
  Monitor: {
    id: "string",
    vat_number: "string",
    reference: "string|null",
    interval_days: "integer",
    status: "string",
    created_at: "date-time",
    last_checked_at: "date-time|null",
    next_check_at: "date-time|null",
    last_result: "VatResult|null",
    webhook: "WebhookState|null",
  },
  WebhookState: {
    url: "string",
    last_delivery_at: "date-time|null",
    last_status: "integer|null",
    attempts: "integer",
  },
  MonitorRequest: {
    vat: "string",
    "reference?": "string",
    "match?": "MatchRequest",
    "interval_days?": "integer",
    "webhook_url?": "string",
  },
  MonitorEvent: { type: "string", data: "MonitorEventData" },
  MonitorEventData: { monitor: "Monitor", previous: "VatResult", current: "VatResult" },
};

/** The spec's Errors table, and the IBAN warning of issue 17. */
const ERROR_CODES = [
  "invalid_request",
  "invalid_format",
  "invalid_country",
  "invalid_length",
  "invalid_checksum",
  "national_check_failed",
  "member_state_unavailable",
  "service_unavailable",
  "upstream_rate_limited",
  "unauthorized",
  "forbidden",
  "rate_limited",
  "quota_exceeded",
  "not_found",
  "method_not_allowed",
  "internal_error",
  // Beyond the spec: the refusals of Idempotency-Key (issue 19).
  "idempotency_key_in_progress",
  "idempotency_key_reused",
];

const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining"];
const QUOTA_HEADERS = ["X-Quota-Limit", "X-Quota-Remaining", "X-Quota-Reset"];

/** A schema's type in the notation of the MODELS table. */
function typeOf(schema: Schema): string {
  if (schema.$ref) return schema.$ref.slice(MODEL.length);
  if (schema.anyOf) return [...new Set(schema.anyOf.map(typeOf))].join("|");
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types
    .map((type) => (type === "string" && schema.format === "date-time" ? "date-time" : type))
    .join("|");
}

function refsIn(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refsIn);
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "$ref" && typeof value === "string" ? [value] : refsIn(value),
  );
}

let harness: Harness;
let document: Document;
let contentType: string | null;

const operation = (route: string): Operation => {
  const [method = "", path = ""] = route.split(" ");
  const found = document.paths[path]?.[method.toLowerCase()];
  if (!found) throw new Error(`${route} is not in the document`);
  return found;
};
const modelOf = (response: Response | undefined) => response?.content?.["application/json"]?.schema.$ref;

beforeAll(async () => {
  harness = await startHarness({ env: { GATEWAY_PROXY_SECRET: GATEWAY_SECRET } });
  const response = await harness.app.handle(new Request("http://localhost/swagger/json"));
  expect(response.status).toBe(200);
  contentType = response.headers.get("content-type");
  document = (await response.json()) as Document;
});
afterAll(() => harness.close());

describe("the OpenAPI document", () => {
  test("is JSON, OpenAPI 3.1, version 1.0.0", () => {
    expect(contentType ?? "").toStartWith("application/json");
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.version).toBe("1.0.0");
    expect(document.info.title).toBeTruthy();
  });

  test("lists exactly the API's routes — no docs routes, no other methods", () => {
    const listed = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(listed.sort()).toEqual(Object.keys(ROUTES).sort());
  });

  test.each(
    Object.entries(ROUTES),
  )("%s has exactly the spec's statuses, each with its model", (route, statuses) => {
    const responses = operation(route).responses;
    expect(Object.keys(responses).sort()).toEqual(Object.keys(statuses).sort());
    for (const [status, model] of Object.entries(statuses)) {
      expect({ status, model: modelOf(responses[status]) }).toEqual({ status, model: `${MODEL}${model}` });
      expect(Object.keys(responses[status]?.content ?? {})).toEqual(
        CSV_RESPONSES.has(`${route} ${status}`) ? ["application/json", "text/csv"] : ["application/json"],
      );
    }
  });

  test("every response has a description of its own and documents X-Request-Id", () => {
    for (const route of Object.keys(ROUTES)) {
      for (const [status, response] of Object.entries(operation(route).responses)) {
        const where = `${route} ${status}`;
        expect({ where, description: response.description ?? "" }).not.toMatchObject({
          description: expect.stringMatching(/^$|^Response for status/),
        });
        expect({ where, headers: Object.keys(response.headers ?? {}) }).toMatchObject({
          headers: expect.arrayContaining(["X-Request-Id"]),
        });
      }
    }
  });

  test("every operation is documented as users meet it: summary, description, one tag, examples of its request and of each answer", () => {
    const tags = (document.tags ?? []).map((tag) => tag.name);
    expect(tags).toEqual(["Validation", "Batches", "Monitors", "Account", "Operations"]);
    expect(document.tags?.every((tag) => (tag.description ?? "").length > 0)).toBe(true);
    const hasExample = (media: Media) =>
      media.example !== undefined || Object.values(media.examples ?? {}).some((e) => e.value !== undefined);
    const events = Object.entries(document.webhooks ?? {}).map(
      ([type, item]) => [`event ${type}`, item.post] as const,
    );
    expect(events.map(([event]) => event)).toEqual([
      "event batch.completed",
      "event batch.cancelled",
      "event vat.registration_changed",
      "event vat.details_changed",
      "event vat.match_changed",
    ]);
    for (const [route, documented] of [
      ...Object.keys(ROUTES).map((route) => [route, operation(route)] as const),
      ...events,
    ]) {
      expect({ route, summary: documented.summary ?? "" }).toMatchObject({
        summary: expect.stringMatching(/\w/),
      });
      expect({ route, description: documented.description ?? "" }).toMatchObject({
        description: expect.stringMatching(/\w/),
      });
      expect({ route, tags: documented.tags ?? [] }).toEqual({
        route,
        tags: [expect.stringMatching(new RegExp(`^(${tags.join("|")})$`))],
      });
      for (const [type, media] of Object.entries(documented.requestBody?.content ?? {}))
        expect({ route, type, example: hasExample(media) }).toEqual({ route, type, example: true });
      for (const [status, response] of Object.entries(documented.responses))
        for (const [type, media] of Object.entries(response.content ?? {}))
          expect({ route, status, type, example: hasExample(media) }).toEqual({
            route,
            status,
            type,
            example: true,
          });
    }
  });

  test("an error response's example carries a code that answers with that status", () => {
    for (const route of Object.keys(ROUTES)) {
      for (const [status, response] of Object.entries(operation(route).responses)) {
        if (status === "default" || status.startsWith("2")) continue;
        const media = response.content?.["application/json"];
        const bodies = [media?.example, ...Object.values(media?.examples ?? {}).map((e) => e.value)];
        for (const body of bodies.filter((body) => body !== undefined)) {
          const code = (body as { error: { code: ErrorCode } }).error.code;
          // The one status a code shares: a body over its limit is `invalid_request` with 413.
          const answers = status === "413" && code === "invalid_request" ? 413 : ERROR_STATUS[code];
          expect({ route, status, code, answers }).toEqual({
            route,
            status,
            code,
            answers: Number(status) as typeof answers,
          });
        }
      }
    }
  });

  test("the error responses name their codes", () => {
    const validate = operation("POST /validate").responses;
    for (const code of ["invalid_request", "invalid_format", "invalid_country", "invalid_length"])
      expect(validate[400]?.description).toContain(code);
    for (const code of ["rate_limited", "quota_exceeded"]) expect(validate[429]?.description).toContain(code);
    for (const code of ["service_unavailable", "member_state_unavailable", "upstream_rate_limited"])
      expect(validate[503]?.description).toContain(code);
    expect(operation("GET /usage").responses[401]?.description).toContain("unauthorized");
    expect(operation("GET /usage").responses[403]?.description).toContain("forbidden");
  });

  test("every POST takes Idempotency-Key, with examples, and documents its refusals and replays", () => {
    const posts = Object.keys(ROUTES).filter((route) => route.startsWith("POST "));
    expect(posts.length).toBeGreaterThan(1);
    for (const route of posts) {
      const { parameters = [], responses } = operation(route);
      const header = parameters.find((parameter) => parameter.name === "Idempotency-Key");
      expect({ route, header }).toMatchObject({ route, header: { in: "header", required: false } });
      expect(Object.keys(header?.examples ?? {}).length).toBeGreaterThan(0);
      const refusals = [
        [409, "idempotency_key_in_progress"],
        [422, "idempotency_key_reused"],
      ] as const;
      for (const [status, code] of refusals) {
        expect(responses[status]?.description).toContain(code);
        const example = (responses[status]?.content?.["application/json"] as { example?: unknown }).example;
        expect(example).toMatchObject({ error: { code } });
      }
      expect(Object.keys(responses[409]?.headers ?? {})).toContain("Retry-After");
      const success = Object.keys(responses).find((status) => status.startsWith("2")) ?? "";
      expect(Object.keys(responses[success]?.headers ?? {})).toContain("Idempotent-Replayed");
    }
  });

  test("documents the rate-limit, quota and billing headers of /validate, and Retry-After", () => {
    const validate = operation("POST /validate").responses;
    expect(Object.keys(validate[200]?.headers ?? {})).toEqual(
      expect.arrayContaining([...RATE_LIMIT_HEADERS, ...QUOTA_HEADERS, "X-Gateway-Billing"]),
    );
    expect(Object.keys(validate[429]?.headers ?? {})).toEqual(
      expect.arrayContaining(["Retry-After", ...RATE_LIMIT_HEADERS]),
    );
    expect(Object.keys(validate[503]?.headers ?? {})).toContain("Retry-After");
    expect(Object.keys(operation("GET /usage").responses[429]?.headers ?? {})).toContain("Retry-After");
  });

  test("the request body of /validate is required JSON only, ValidateRequest", () => {
    const body = operation("POST /validate").requestBody;
    expect(body?.required).toBe(true);
    expect(Object.keys(body?.content ?? {})).toEqual(["application/json"]);
    expect(body?.content?.["application/json"]?.schema).toEqual({ $ref: `${MODEL}ValidateRequest` });
  });

  test("the X-API-Key scheme is defined and applies to /validate and /usage only", () => {
    expect(document.components.securitySchemes).toEqual({
      ApiKey: expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-Key" }),
    });
    expect(document.security).toBeUndefined();
    for (const route of Object.keys(ROUTES)) {
      const expected = PROTECTED.has(route) ? [{ ApiKey: [] }] : [];
      expect({ route, security: operation(route).security }).toEqual({ route, security: expected });
    }
  });

  test.each(
    Object.entries(MODELS),
  )("model %s has exactly the spec's fields, types and required-ness", (name, fields) => {
    const schema = document.components.schemas[name];
    expect(schema?.type).toBe("object");
    const documented = Object.fromEntries(
      Object.entries(schema?.properties ?? {}).map(([field, property]) => [
        schema?.required?.includes(field) ? field : `${field}?`,
        typeOf(property),
      ]),
    );
    expect(documented).toEqual(fields);
  });

  test("ValidateRequest carries the spec's bounds", () => {
    const request = document.components.schemas.ValidateRequest;
    expect(request?.properties?.vat?.maxLength).toBe(40);
    expect(request?.properties?.iban?.maxLength).toBe(60);
    expect(request?.minProperties).toBe(1);
  });

  test("the closed values: every error code, the plans, the sources", () => {
    const schemas = document.components.schemas;
    expect(schemas.Error?.properties?.code?.enum).toEqual(ERROR_CODES);
    expect(schemas.UsageBlock?.properties?.plan?.enum).toEqual(["free", "basic", "pro", "rapidapi"]);
    expect(schemas.Usage?.properties?.plan?.enum).toEqual(["free", "basic", "pro", "rapidapi"]);
    expect(schemas.VatResult?.properties?.source?.anyOf?.map((option) => option.const ?? null)).toEqual([
      "vies",
      "uk_authority",
      "ch_uid",
      "no_brreg",
      "syntax",
      null,
    ]);
    expect(schemas.IbanResult?.properties?.source?.const).toBe("offline");
  });

  test("the events of monitors: the MonitorEvent body and the Standard Webhooks headers", () => {
    const webhooks = (
      document as unknown as {
        webhooks: Record<string, { post: Operation & { parameters: { name: string }[] } }>;
      }
    ).webhooks;
    for (const event of ["vat.registration_changed", "vat.details_changed", "vat.match_changed"]) {
      const post = webhooks[event]?.post;
      expect(post?.requestBody?.content?.["application/json"]?.schema.$ref).toBe(`${MODEL}MonitorEvent`);
      expect(post?.parameters.map((parameter) => parameter.name)).toEqual([
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
      ]);
    }
    expect(document.components.schemas.MonitorEvent?.properties?.type?.enum).toEqual([
      "vat.registration_changed",
      "vat.details_changed",
      "vat.match_changed",
    ]);
  });

  test("every reference resolves, and no `$id` fragments are left", () => {
    for (const reference of refsIn(document)) {
      expect(reference).toStartWith(MODEL);
      expect(document.components.schemas[reference.slice(MODEL.length)]).toBeDefined();
    }
    expect(JSON.stringify(document)).not.toContain('"$id"');
  });
});

describe("the documented headers are the ones sent", () => {
  const documented = (route: string, status: number) =>
    Object.keys(operation(route).responses[status]?.headers ?? {});
  const sent = (headers: Headers) => new Set([...headers.keys()]);
  const IBAN = { iban: "DE89370400440532013000" };

  test("a 200 from /validate for a direct key carries every header documented for it but the gateway's", async () => {
    const key = await harness.createKey("basic");
    const response = await harness.validate(key.secret, IBAN);
    expect(response.status).toBe(200);
    const expected = documented("POST /validate", 200).filter(
      (name) => name !== "X-Gateway-Billing" && name !== "Idempotent-Replayed",
    );
    expect([...sent(response.headers)]).toEqual(
      expect.arrayContaining(expected.map((name) => name.toLowerCase())),
    );
  });

  test("a replayed 200 from /validate carries them all the same, and Idempotent-Replayed", async () => {
    const key = await harness.createKey("basic");
    const headers = { "idempotency-key": crypto.randomUUID() };
    await harness.request("POST", "/validate", { key: key.secret, body: IBAN, headers });
    const response = await harness.request("POST", "/validate", { key: key.secret, body: IBAN, headers });
    expect(response.headers.get("idempotent-replayed")).toBe("true");
    const expected = documented("POST /validate", 200).filter((name) => name !== "X-Gateway-Billing");
    expect([...sent(response.headers)]).toEqual(
      expect.arrayContaining(expected.map((name) => name.toLowerCase())),
    );
  });

  test("a 200 from /validate through the gateway carries every header documented for it but the quota's", async () => {
    const response = await harness.request("POST", "/validate", {
      body: IBAN,
      headers: {
        "x-gateway-proxy-secret": GATEWAY_SECRET,
        "x-gateway-user": `openapi-${crypto.randomUUID()}`,
      },
    });
    expect(response.status).toBe(200);
    const expected = documented("POST /validate", 200).filter(
      (name) => !QUOTA_HEADERS.includes(name) && name !== "Idempotent-Replayed",
    );
    expect([...sent(response.headers)]).toEqual(
      expect.arrayContaining(expected.map((name) => name.toLowerCase())),
    );
  });

  test("a 429 carries Retry-After and the rate-limit headers", async () => {
    const key = await harness.createKey("basic", { rate: 1 });
    await harness.validate(key.secret, IBAN);
    const response = await harness.validate(key.secret, IBAN);
    expect(response.status).toBe(429);
    const expected = documented("POST /validate", 429).filter((name) => name !== "X-Gateway-Billing");
    expect([...sent(response.headers)]).toEqual(
      expect.arrayContaining(expected.map((name) => name.toLowerCase())),
    );
  });
});
