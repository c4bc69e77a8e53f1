import { dirname, join } from "node:path";
import { openapi } from "@elysiajs/openapi";
import { type AnyElysia, type DocumentDecoration, Elysia, type InternalRoute } from "elysia";
import { IDEMPOTENCY_PARAMETER, mayBeReplayed, REPLAYED_HEADER_DOC } from "../idempotency/plugin.ts";
import { ApiError, type ErrorCode } from "../kernel/errors.ts";
import { contentSecurityPolicy } from "./content-security.ts";
import type { models } from "./models.ts";

const OPENAPI_VERSION = "3.1.2";
const SCHEMA_PREFIX = "#/components/schemas/";

type ModelName = keyof typeof models;
type HeaderDoc = { description: string; schema: { type: "integer" | "string"; format?: "date-time" } };
type NamedExamples = Record<string, { summary: string; value: unknown }>;
type MediaDoc = { schema?: object; example?: unknown; examples?: NamedExamples };
type ContentDoc = Record<string, MediaDoc>;
type ExampleContent = { content: Record<string, { example: unknown } | { examples: NamedExamples }> };
type ResponseDoc = { description?: string; headers?: Record<string, unknown>; content?: ContentDoc };
type ParameterDoc = { name: string; in: string };
type OperationDoc = {
  parameters?: ParameterDoc[];
  requestBody?: { content?: ContentDoc };
  responses?: Record<string, ResponseDoc>;
};

/** The groups of the document's operations, in the order a reader meets them. */
export const TAGS = {
  Validation: "Validate one VAT number or IBAN, and the stored record of a VAT check",
  Batches: "Validate lists in the background: CSV or JSON in, progress, results, webhooks",
  Monitors: "Watch VAT numbers over time and hear when a registration or its details change",
  Account: "The calling key's plan, usage and quota",
  Operations: "Availability of the service and of the authorities behind it",
} as const;
export type Tag = keyof typeof TAGS;

/** An event the service sends to a `webhook_url`, for the document's `webhooks`. */
export type WebhookDoc = {
  type: string;
  summary: string;
  description: string;
  tag: Tag;
  model: ModelName;
  example: unknown;
};

const signatureHeader = (name: string, description: string) => ({
  name,
  in: "header",
  required: true,
  description,
  schema: { type: "string" },
});

/** Every event is a signed POST of Standard Webhooks, retried until a 2xx: documented once. */
function webhookOperation(event: WebhookDoc) {
  return {
    post: {
      summary: event.summary,
      description: `${event.description} Signed per Standard Webhooks with the key's signing secret (\`npm run keys -- webhook-secret KEY_ID\`); delivered at least once, retried with backoff for 24 hours until your endpoint answers 2xx, with the same \`webhook-id\` on every attempt: use it to ignore repeats.`,
      operationId: `on-${event.type.replace(".", "-")}`,
      tags: [event.tag],
      // Your endpoint is called, not ours: the signature headers are what proves the sender.
      security: [],
      parameters: [
        signatureHeader("webhook-id", "the message's id: the same on every retry"),
        signatureHeader("webhook-timestamp", "when this attempt was signed, in seconds since 1970"),
        signatureHeader("webhook-signature", "`v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`"),
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": { schema: { $ref: `${SCHEMA_PREFIX}${event.model}` }, example: event.example },
        },
      },
      responses: {
        "200": {
          description:
            "Received; any 2xx will do. Any other answer, or none within WEBHOOK_TIMEOUT_MS (10 s by default), is retried",
        },
      },
    },
  };
}

/** Examples of a JSON body, named: Swagger UI offers them in a list, the first shown. */
export function jsonExamples(examples: NamedExamples): ExampleContent {
  return { content: { "application/json": { examples } } };
}

/** The example of a JSON body. */
export const jsonExample = (value: unknown): ExampleContent => ({
  content: { "application/json": { example: value } },
});

/** An error response's example: the one error shape, with a code and message this route sends. */
export const errorExample = (code: ErrorCode, message: string) => jsonExample({ error: { code, message } });

const header = (description: string, type: "integer" | "string", format?: "date-time"): HeaderDoc => ({
  description,
  schema: format ? { type, format } : { type },
});

/** Response headers of the API, grouped as the routes send them, for `detail.responses`. */
export const HEADERS = {
  rateLimit: {
    "X-RateLimit-Limit": header("requests allowed per minute", "integer"),
    "X-RateLimit-Remaining": header("requests left in the current minute", "integer"),
  },
  quota: {
    "X-Quota-Limit": header("monthly billable validations; direct API keys only", "integer"),
    "X-Quota-Remaining": header("billable validations left this period; direct API keys only", "integer"),
    "X-Quota-Reset": header("start of the next period; direct API keys only", "string", "date-time"),
  },
  gatewayBilling: {
    "X-Gateway-Billing": header(
      "gateway calls only: `Validations=1` when the request was billed, `Validations=0` otherwise",
      "string",
    ),
  },
  retryAfter: { "Retry-After": header("whole seconds to wait before retrying", "integer") },
  cacheControl: {
    "Cache-Control": header("`public, max-age=N`: N seconds until this service asks VIES again", "string"),
  },
} as const;

/** The headers of an answer to a billed route (/validate, /iban/build) once the key was accepted. */
export const AFTER_AUTHENTICATION = { ...HEADERS.rateLimit, ...HEADERS.gatewayBilling };

/** The 413 of a billed route, whose JSON body is bounded by MAX_BODY_BYTES. */
export const BODY_TOO_LARGE = {
  description: "`invalid_request`: the body is over the size limit (16 KiB by default)",
  headers: AFTER_AUTHENTICATION,
  ...errorExample("invalid_request", "the body must be at most 16384 bytes"),
};

/** The 413 of a route that takes a list (a batch, monitors), whose body is bounded by BATCH_MAX_BYTES. */
export const LIST_BODY_TOO_LARGE = {
  description: "`invalid_request`: the body is over BATCH_MAX_BYTES (4 MiB by default)",
  ...errorExample("invalid_request", "the body must be at most 4194304 bytes"),
};

/** Response models of error statuses, for a route's `response`: every error has the one shape. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, "ErrorResponse" as const]));

/** What every route that needs a key may answer besides its own outcomes, documented once. */
export const KEYED_ROUTE_RESPONSES = {
  401: {
    description: "`unauthorized`: the key is missing or invalid",
    ...errorExample("unauthorized", "send your API key in the X-API-Key header (or Authorization: Bearer)"),
  },
  403: {
    description: "`forbidden`: the key is revoked",
    ...errorExample("forbidden", "this API key has been revoked"),
  },
  429: {
    description: "`rate_limited`: the per-minute limit is exceeded",
    headers: { ...HEADERS.retryAfter, ...HEADERS.rateLimit },
    ...errorExample("rate_limited", "more than 60 requests in this minute; retry in 12 s"),
  },
  503: {
    description: "`service_unavailable`: a store the service needs is unreachable",
    headers: HEADERS.retryAfter,
    ...errorExample("service_unavailable", "usage cannot be recorded right now; try again shortly"),
  },
};

/** The 503 of a route that checks a `webhook_url`, whose host's lookup may not be answered in time. */
export const WEBHOOK_LOOKUP_UNAVAILABLE = {
  description:
    "`service_unavailable`: a store the service needs is unreachable, or the host of `webhook_url` did not resolve in time (WEBHOOK_CONNECT_TIMEOUT_MS); nothing is created or changed",
  headers: HEADERS.retryAfter,
  ...errorExample(
    "service_unavailable",
    "`webhook_url` its host hooks.example.com did not resolve within 3000 ms; try again shortly",
  ),
};

const REQUEST_ID_HEADER = {
  "X-Request-Id": header(
    "identifier of the request; a well-formed one sent by a proxy in front of the service is kept",
    "string",
  ),
};

/**
 * A request body documented as JSON only. Routes that read their body with a parser of their
 * own get no content types from the plugin, and its default lists form encodings the API
 * does not accept.
 */
export function jsonRequestBody(
  model: ModelName,
  examples: NamedExamples,
): NonNullable<DocumentDecoration["requestBody"]> {
  return {
    required: true,
    content: { "application/json": { schema: { $ref: `${SCHEMA_PREFIX}${model}` }, examples } },
  };
}

/**
 * The plugin derives each operation from the route's schemas but replaces what the route's
 * `detail` says about its request body and responses. This puts the declared text back —
 * per status, over the derived schemas — and adds the X-Request-Id every response carries.
 */
function withDeclaredDetail(
  operation: OperationDoc,
  detail: DocumentDecoration,
  where: string,
): OperationDoc {
  const declared = (detail.responses ?? {}) as Record<string, ResponseDoc>;
  const idempotent = (detail.parameters as { name?: string }[] | undefined)?.some(
    (parameter) => parameter.name === IDEMPOTENCY_PARAMETER,
  );
  const responses: Record<string, ResponseDoc> = {};
  for (const [status, derived] of Object.entries(operation.responses ?? {})) {
    const own = declared[status];
    const replayed = idempotent && mayBeReplayed(Number(status)) ? REPLAYED_HEADER_DOC : {};
    const headers = { ...REQUEST_ID_HEADER, ...derived.headers, ...own?.headers, ...replayed };
    const content = withMedia(derived.content, own?.content);
    responses[status] = { ...derived, ...own, headers, ...(content && { content }) };
  }
  const undeclared = Object.keys(declared).filter((status) => !(status in responses));
  if (undeclared.length > 0) {
    throw new Error(`${where} documents status ${undeclared.join(", ")} without a response schema`);
  }
  const declaredBody = detail.requestBody as OperationDoc["requestBody"];
  const requestContent = withMedia(operation.requestBody?.content, declaredBody?.content);
  const requestBody = declaredBody
    ? { ...operation.requestBody, ...declaredBody, ...(requestContent && { content: requestContent }) }
    : undefined;
  // The plugin keeps a route's declared parameters (an Idempotency-Key) only when it derives
  // none of its own: with path parameters they are added here.
  const derivedParameters = operation.parameters ?? [];
  const extra = ((detail.parameters ?? []) as ParameterDoc[]).filter(
    (parameter) => !derivedParameters.some((own) => own.name === parameter.name && own.in === parameter.in),
  );
  const parameters = extra.length > 0 ? { parameters: [...derivedParameters, ...extra] } : {};
  return { ...operation, ...parameters, ...(requestBody && { requestBody }), responses };
}

/**
 * Declared media types over derived ones, field by field: a route that only adds an example
 * keeps the schema derived from its model.
 */
function withMedia(
  derived: ContentDoc | undefined,
  declared: ContentDoc | undefined,
): ContentDoc | undefined {
  if (!declared) return derived;
  const merged: ContentDoc = { ...derived };
  for (const [type, media] of Object.entries(declared)) merged[type] = { ...derived?.[type], ...media };
  return merged;
}

/**
 * The plugin inlines a model wherever another model uses it. Models carry their name as
 * `title`, so each inlined copy becomes a reference: the document names the model and keeps
 * one definition of it. The `$id`s Elysia adds go, since JSON Schema does not allow a bare
 * fragment there.
 */
function referToModels(node: unknown, names: ReadonlySet<string>, isModelRoot: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => referToModels(item, names, false));
  if (typeof node !== "object" || node === null) return node;
  const schema = node as Record<string, unknown>;
  if (!isModelRoot && typeof schema.title === "string" && names.has(schema.title)) {
    const reference = { $ref: `${SCHEMA_PREFIX}${schema.title}` };
    const nullable = Array.isArray(schema.type) && schema.type.includes("null");
    const described = typeof schema.description === "string" ? { description: schema.description } : {};
    return nullable ? { ...described, anyOf: [reference, { type: "null" }] } : { ...described, ...reference };
  }
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== "$id")
      .map(([key, value]) => [key, referToModels(value, names, false)]),
  );
}

/** What any route may also answer: the errors of the HTTP layer, in the same shape. */
const UNEXPECTED_RESPONSE: ResponseDoc = {
  description:
    "`not_found` (404), `method_not_allowed` (405, with `Allow`) or `internal_error` (500), in the error shape",
  headers: REQUEST_ID_HEADER,
  content: {
    "application/json": {
      schema: { $ref: `${SCHEMA_PREFIX}ErrorResponse` },
      example: { error: { code: "not_found", message: "no route for GET /validation" } },
    },
  },
};

type GeneratedDocument = {
  paths: Record<string, Record<string, OperationDoc>>;
  components: { schemas: Record<string, unknown> };
};

/**
 * The plugin's document, completed: each operation with what its route's `detail` declares,
 * models referred to instead of inlined, and the API key security scheme.
 */
function completed(
  app: AnyElysia,
  generated: GeneratedDocument,
  info: DocumentInfo,
  webhooks: readonly WebhookDoc[],
) {
  const paths = structuredClone(generated.paths);
  // Protected in Elysia's types; the plugin's generator reads the routes through it too.
  const routes = (app as unknown as { getGlobalRoutes(): InternalRoute[] }).getGlobalRoutes();
  for (const route of routes) {
    const detail = route.hooks.detail as DocumentDecoration | undefined;
    const path = route.path.replace(/:([^/]+)/g, "{$1}");
    const method = route.method.toLowerCase();
    const operation = paths[path]?.[method];
    if (!operation || detail?.hide) continue;
    const documented = withDeclaredDetail(operation, detail ?? {}, `${route.method} ${route.path}`);
    (paths[path] as Record<string, OperationDoc>)[method] = {
      ...documented,
      responses: { ...documented.responses, default: UNEXPECTED_RESPONSE },
    };
  }
  const models = generated.components.schemas;
  const names = new Set(Object.keys(models));
  return {
    openapi: OPENAPI_VERSION,
    info,
    // The document is served by the API it describes: its paths are relative to where it was read.
    servers: [{ url: "/", description: "this service" }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    webhooks: Object.fromEntries(webhooks.map((event) => [event.type, webhookOperation(event)])),
    components: {
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "your API key" },
      },
      schemas: Object.fromEntries(
        Object.entries(models).map(([name, schema]) => [name, referToModels(schema, names, true)]),
      ),
    },
  };
}

const UI_ASSETS = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
} as const;

// Swagger UI is started from a file of our own rather than an inline script, so the page
// runs under a content-security policy that allows scripts from this origin only.
const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/swagger/json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: true,
    tryItOutEnabled: true,
    validatorUrl: null
  });
});
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>VAT and IBAN validation API</title>
  <link rel="icon" type="image/png" href="/swagger/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/swagger/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/swagger/assets/swagger-ui-bundle.js"></script>
  <script src="/swagger/assets/init.js"></script>
</body>
</html>
`;

// Swagger UI sets element styles at run time.
const CONTENT_SECURITY_POLICY = contentSecurityPolicy({ inlineStyles: true });

function swaggerUiDirectory(): string {
  return dirname(require.resolve("swagger-ui-dist/package.json"));
}

type DocumentInfo = {
  title: string;
  version: string;
  description: string;
  license: { name: string; identifier: string };
};

const SPEC_PATH = "/swagger/json";

/**
 * The OpenAPI document at `/swagger/json`, served by the @elysiajs/openapi plugin from the
 * routes' schemas and completed here (see `completed`), and the Swagger UI at `/swagger`, a
 * page of our own with its assets from the `swagger-ui-dist` package: the plugin's own page
 * loads them from a CDN with an inline script, which neither works offline nor under a
 * content-security policy that allows scripts from this origin only.
 */
export function docs(options: { version: string; description: string; webhooks: readonly WebhookDoc[] }) {
  const assetDirectory = swaggerUiDirectory();
  const assets = Object.fromEntries(
    Object.entries(UI_ASSETS).map(([name, type]) => [
      name,
      { file: Bun.file(join(assetDirectory, name)), type },
    ]),
  );
  const info: DocumentInfo = {
    title: "VAT and IBAN validation API",
    version: options.version,
    description: options.description,
    // SPDX's form for a licence of one's own: the API and its description are not open source.
    license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
  };
  const hidden = { detail: { hide: true } };
  const plugin = new Elysia({ name: "docs" });
  // The plugin keeps its document until the routes change; so is its completed form kept.
  const documents = new WeakMap<object, ReturnType<typeof completed>>();
  return (
    plugin
      // Registered before the routes below, of which only the plugin's document answers at SPEC_PATH.
      .onAfterHandle(({ path, response }) => {
        if (path !== SPEC_PATH || typeof response !== "object" || response === null) return;
        let document = documents.get(response);
        if (!document) {
          document = completed(plugin, response as GeneratedDocument, info, options.webhooks);
          documents.set(response, document);
        }
        return document;
      })
      .use(
        openapi({
          path: "/swagger",
          specPath: SPEC_PATH,
          provider: null,
          openapiVersion: OPENAPI_VERSION,
          documentation: { info },
        }),
      )
      .get(
        "/swagger",
        () =>
          new Response(PAGE, {
            headers: {
              "content-type": "text/html; charset=utf-8",
              "content-security-policy": CONTENT_SECURITY_POLICY,
            },
          }),
        hidden,
      )
      .get(
        "/swagger/assets/init.js",
        () => new Response(INIT_SCRIPT, { headers: { "content-type": "text/javascript; charset=utf-8" } }),
        hidden,
      )
      .get(
        "/swagger/assets/:name",
        ({ params }) => {
          // Own properties only: `constructor` or `__proto__` must not find the object's prototype.
          const asset = Object.hasOwn(assets, params.name) ? assets[params.name] : undefined;
          if (!asset) throw new ApiError("not_found", `no documentation asset named ${params.name}`);
          return new Response(asset.file, {
            headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
          });
        },
        hidden,
      )
  );
}
