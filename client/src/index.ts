/**
 * The typed client of the VAT and IBAN validation API. Every route, request body, answer and
 * error is typed from the service's OpenAPI document (`openapi.ts`, generated); calls go
 * through openapi-fetch, so each answer is `{ data }` or `{ error }` with the API's own types.
 *
 * ```ts
 * const api = createVatIbanClient({ baseUrl: "https://vat.example.com", apiKey: process.env.API_KEY });
 * const { data, error } = await api.POST("/validate", { body: { vat: "NL854265259B01" } });
 * ```
 *
 * Webhook verification, for the server that receives them, is in `@vat-iban/client/webhooks`.
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, paths } from "./openapi.ts";

export type { Middleware } from "openapi-fetch";
export type { components, operations, paths } from "./openapi.ts";
export { type RetryOptions, retrySafely } from "./retry.ts";

/** The API's named schemas: `Schemas["VatResult"]`, `Schemas["Batch"]`, … */
export type Schemas = components["schemas"];
/** The body of every error the API answers: `{ error: { code, message } }`. */
export type ErrorResponse = Schemas["ErrorResponse"];
/** One of the API's error codes. */
export type ErrorCode = Schemas["Error"]["code"];

/** JSON answers are typed as JSON; a CSV page is asked for with `parseAs: "text"`. */
type JsonMedia = `${string}/json`;

export type VatIbanClient = Client<paths, JsonMedia>;

export type VatIbanClientOptions = Omit<ClientOptions, "baseUrl"> & {
  /** Where the service is, such as `https://vat.example.com`; "" for the page's own origin. */
  baseUrl: string;
  /** Sent as `X-API-Key` with every call; leave it out for the routes that need none. */
  apiKey?: string;
};

/** A client of the API at `baseUrl`, with the key sent on every call. */
export function createVatIbanClient({
  baseUrl,
  apiKey,
  headers,
  ...options
}: VatIbanClientOptions): VatIbanClient {
  // Headers given as a Headers object or as pairs become a record, so the key can join them.
  const given =
    headers instanceof Headers || Array.isArray(headers) ? Object.fromEntries(new Headers(headers)) : headers;
  return createClient<paths, JsonMedia>({
    ...options,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: { ...given, ...(apiKey !== undefined && { "x-api-key": apiKey }) },
  });
}

/**
 * The request options that send `text` as the CSV body of `POST /batches` (a header row naming
 * any of `vat`, `iban`, `reference`): `api.POST("/batches", csvBody(text))`.
 */
export function csvBody(text: string) {
  return {
    body: text,
    bodySerializer: (body: unknown) => body as string,
    headers: { "content-type": "text/csv" },
  };
}
