import { Elysia, ValidationError } from "elysia";
import { ApiError } from "../kernel/errors.ts";
import { describeFailure, stackFrames } from "../kernel/failure.ts";
import type { Logger } from "../kernel/log.ts";
import { noteRequest, type RequestLog } from "../observability/request-log.ts";
import { pathOf } from "./path.ts";
import { routeOf } from "./routes.ts";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/** The one place an ApiError becomes an HTTP response. */
export function renderError(error: ApiError, headers: Record<string, string | number> = {}): Response {
  const responseHeaders: Record<string, string> = { ...JSON_HEADERS };
  for (const [name, value] of Object.entries(headers)) responseHeaders[name] = String(value);
  if (error.headers) Object.assign(responseHeaders, error.headers);
  if (error.retryAfter !== undefined)
    responseHeaders["retry-after"] = String(Math.max(0, Math.ceil(error.retryAfter)));
  return new Response(JSON.stringify(error.toBody()), { status: error.status, headers: responseHeaders });
}

/**
 * Explains a failed body validation in the words of the API's input rules, so the caller
 * learns which rule failed rather than reading a JSON-schema error.
 */
export function describeBodyProblem(error: Readonly<ValidationError>): string {
  // The raw first error: `error.all` formats every error with the value in it, which throws
  // for some values.
  const first = error.valueError;
  const field = first?.path.replace(/^\//, "").split("/")[0] ?? "";
  // The body parser refuses non-objects and non-string fields, so a problem at the root is a
  // missing field.
  if (!first || field === "") return "send `vat`, `iban`, or both, as strings";
  const value = first.value;
  if (value === undefined) return `send \`${field}\``;
  const maxLength = (first.schema as { maxLength?: number }).maxLength;
  if (maxLength !== undefined && typeof value === "string" && value.length > maxLength) {
    return `\`${field}\` must be at most ${maxLength} characters, got ${value.length}`;
  }
  return `\`${field}\` is not valid: ${first.message}`;
}

/** The first failing property of a request part, as its name (`limit`, `id`). */
function propertyOf(error: Readonly<ValidationError>): string {
  return error.valueError?.path.replace(/^\//, "").split("/")[0] || "?";
}

/**
 * The refusal a request that breaks its route's schema gets: a path parameter that cannot be
 * an id this API gives out names nothing there is (404, the value not repeated: it may be
 * anything); a query string or header out of shape is a bad request. A response breaking its
 * schema is ours, not the caller's: undefined, to be logged.
 */
function describeRequestProblem(error: Readonly<ValidationError>): ApiError | undefined {
  switch (error.type) {
    case "body":
      return new ApiError("invalid_request", describeBodyProblem(error));
    case "params":
      return new ApiError("not_found", `\`${propertyOf(error)}\` is not an id this API gives out`);
    case "query":
      return new ApiError("invalid_request", `the query parameter \`${propertyOf(error)}\` is not valid`);
    case "headers":
      return new ApiError("invalid_request", `the header \`${propertyOf(error)}\` is not valid`);
  }
  return undefined;
}

/** The ApiError an Elysia failure stands for; logs what nobody anticipated. */
function asApiError(
  code: string | number,
  error: unknown,
  request: Request,
  options: ErrorHandlingOptions,
): ApiError {
  if (error instanceof ApiError) return error;
  switch (code) {
    case "NOT_FOUND": {
      const path = pathOf(request.url);
      const allowed = routeOf(path)?.methods;
      if (allowed) {
        return new ApiError(
          "method_not_allowed",
          `${request.method} is not allowed on ${path}; use ${allowed.join(", ")}`,
          {
            headers: { allow: allowed.join(", ") },
          },
        );
      }
      return new ApiError("not_found", `no route for ${request.method} ${path}`);
    }
    case "PARSE": {
      // Elysia wraps what our body parser throws; its own refusal means the JSON did not parse.
      const cause = (error as { cause?: unknown }).cause;
      return cause instanceof ApiError
        ? cause
        : new ApiError("invalid_request", "the body is not valid JSON");
    }
    case "VALIDATION":
      if (error instanceof ValidationError) {
        const problem = describeRequestProblem(error);
        if (problem) return problem;
      }
      break;
  }
  options.log.error("unhandled_error", {
    elysia: String(code),
    ...describeFailure(error),
    stack: stackFrames(error),
  });
  return new ApiError("internal_error", "an unexpected error occurred; it has been logged");
}

type ErrorHandlingOptions = { log: Logger; requestLog: RequestLog };

/**
 * Turns every failure — our own ApiErrors and Elysia's routing, parsing and validation
 * errors — into the ErrorResponse body, so no response ever leaks a stack trace or an
 * HTML page. A path of ours asked with another method gets 405 and the methods it takes.
 */
export function errorHandling(options: ErrorHandlingOptions) {
  return new Elysia({ name: "error-handling" }).onError(
    { as: "global" },
    ({ code, error, request, set, route }) => {
      const apiError = asApiError(code, error, request, options);
      noteRequest(request, { status: apiError.status, error: apiError.code });
      options.requestLog.answered(request, {
        status: apiError.status,
        requestId: set.headers["x-request-id"],
        route: route ?? "",
      });
      return renderError(apiError, set.headers as Record<string, string | number>);
    },
  );
}
