import { type Static, t } from "elysia";
import { stringEnum } from "./enum-schema.ts";

/**
 * The closed catalogue of error codes, each with the HTTP status it carries when it is the
 * answer to the whole request. Every layer uses these codes; `http/errors.ts` renders them.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_format: 400,
  invalid_country: 400,
  invalid_length: 400,
  invalid_checksum: 200,
  /** Only ever a warning on an IBAN result, never the answer to a request. */
  national_check_failed: 200,
  member_state_unavailable: 503,
  service_unavailable: 503,
  upstream_rate_limited: 503,
  unauthorized: 401,
  forbidden: 403,
  rate_limited: 429,
  quota_exceeded: 429,
  not_found: 404,
  method_not_allowed: 405,
  internal_error: 500,
  idempotency_key_in_progress: 409,
  idempotency_key_reused: 422,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorSchema = t.Object(
  {
    code: stringEnum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
    message: t.String(),
  },
  { title: "Error" },
);
export type ApiErrorBody = Static<typeof ErrorSchema>;

export const ErrorResponseSchema = t.Object({ error: ErrorSchema }, { title: "ErrorResponse" });
export type ErrorResponse = Static<typeof ErrorResponseSchema>;

/** A failure that ends the request with the code's HTTP status and the ErrorResponse body. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Seconds, sent as `Retry-After`. */
  readonly retryAfter: number | undefined;
  /** Extra response headers the failure carries (rate-limit headers on a 429, for example). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { retryAfter?: number; headers?: Record<string, string>; status?: number } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
  }

  toBody(): ErrorResponse {
    return { error: { code: this.code, message: this.message } };
  }
}

export function componentError(code: ErrorCode, message: string): ApiErrorBody {
  return { code, message };
}
