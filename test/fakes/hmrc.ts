/**
 * A local stand-in for HMRC's API platform serving "Check a UK VAT number" (v2.0) over real
 * HTTP: the OAuth 2.0 client-credentials token endpoint and both lookup endpoints, with the
 * platform's own checks (Accept header, bearer token, scope) and its error bodies.
 *
 * Wire facts come from HMRC's published OpenAPI document and service code
 * (hmrc/vat-registered-companies-api: public/api/conf/2.0/application.yaml,
 * VatRegCoLookupController.scala, LookupRequestError.scala, models/Address.scala), the API
 * platform's gateway errors (INVALID_CREDENTIALS, MISSING_CREDENTIALS, INVALID_SCOPE,
 * RESOURCE_FORBIDDEN, MESSAGE_THROTTLED_OUT, MATCHING_RESOURCE_NOT_FOUND, ACCEPT_HEADER_INVALID)
 * and the Developer Hub's "application-restricted endpoints" page (token response, 4 hours).
 * Constants are written out here on purpose rather than imported from the client, so a wrong
 * constant in the client fails the tests instead of agreeing with itself.
 */

export type HmrcCompany = {
  name: string;
  /** Address lines 1 to 5, in order; HMRC always has line1. */
  lines: string[];
  postcode?: string;
  /** Defaults to GB. */
  countryCode?: string;
};

/** Failures the fake can be told to produce instead of its normal answer. */
export type HmrcFault =
  /** 429 MESSAGE_THROTTLED_OUT, as the platform answers over the rate limit. */
  | "throttled"
  /** 500 INTERNAL_SERVER_ERROR "Unknown error", the API's own answer when its backend fails. */
  | "internal_error"
  /** 503 SERVER_ERROR "Service unavailable" from the platform. */
  | "unavailable"
  /** 502 with an HTML page, as an edge proxy sends. */
  | "html_error"
  /** 200 with an HTML page (a captive portal or a misrouted proxy). */
  | "html_ok"
  /** 403 RESOURCE_FORBIDDEN: the application is not subscribed to the API. */
  | "not_subscribed"
  /** 401 INVALID_CREDENTIALS whatever token was sent. */
  | "reject_tokens"
  /** Accepts the request and never answers. */
  | "hang"
  /** Sends the status line, headers and half a body, then stalls. */
  | "stall_body";

export type HmrcEndpoint = "token" | "lookup";

export type RecordedRequest = {
  endpoint: HmrcEndpoint | "other";
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
};

export type HmrcFakeOptions = {
  clientId: string;
  clientSecret: string;
  /** `expires_in` of issued tokens; HMRC's is 14 400 (4 hours). */
  tokenLifetimeSeconds?: number;
};

export type HmrcFake = {
  baseUrl: string;
  /** Requests received per endpoint, counted before any check or fault. */
  calls: { token: number; lookup: number };
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Registers a VRN (9 or 12 digits) as it would be found in HMRC's register. */
  addNumber(vrn: string, company: HmrcCompany): void;
  /** Makes `endpoint` fail with `fault` (null restores normal answers), for `times` requests or until changed. */
  setBehaviour(endpoint: HmrcEndpoint, fault: HmrcFault | null, options?: { times?: number }): void;
  /** Expires every token issued so far, as if their 4 hours had passed. */
  expireTokens(): void;
  /** Tokens issued so far, oldest first. */
  issuedTokens(): string[];
  stop(): Promise<void>;
};

const ACCEPT_V2 = "application/vnd.hmrc.2.0+json";
const SCOPE = "read:vat";
const VRN = /^(?:\d{9}|\d{12})$/;
const LOOKUP = /^\/organisations\/vat\/check-vat-number\/lookup\/([^/]+)(?:\/([^/]+))?\/?$/;

const JSON_HEADERS = { "Content-Type": "application/json" };

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

function hmrcError(status: number, code: string, message: string): Response {
  return json(status, { code, message });
}

function oauthError(status: number, error: string, description: string): Response {
  return json(status, { error, error_description: description });
}

function html(status: number): Response {
  return new Response(
    `<!DOCTYPE html><html><head><title>${status}</title></head><body><h1>Error</h1></body></html>`,
    {
      status,
      headers: { "Content-Type": "text/html; charset=utf-8" },
    },
  );
}

/** A path segment as the service sees it; a malformed escape stays as sent and fails the VRN check. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** HMRC's timestamp format: `2019-01-31T12:43:17+00:00`. */
function processingDate(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "+00:00");
}

/** Nine letters, as HMRC's consultation numbers are (for example `ypAeKRPlW`). */
function consultationNumber(): string {
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  return Array.from(crypto.getRandomValues(new Uint8Array(9)), (byte) => letters[byte % letters.length]).join(
    "",
  );
}

/** Starts the fake on 127.0.0.1 with an ephemeral port. */
export function startHmrcFake(options: HmrcFakeOptions): HmrcFake {
  const lifetimeSeconds = options.tokenLifetimeSeconds ?? 14_400;
  const register = new Map<string, HmrcCompany>();
  const tokens = new Map<string, { scopes: Set<string>; expiresAt: number }>();
  const faults: Record<HmrcEndpoint, { fault: HmrcFault; remaining: number } | null> = {
    token: null,
    lookup: null,
  };
  const releases = new Set<() => void>();
  const calls = { token: 0, lookup: 0 };
  const requests: RecordedRequest[] = [];

  const hang = (): Promise<Response> =>
    new Promise((resolve) => {
      const release = () => resolve(hmrcError(503, "SERVER_ERROR", "Service unavailable"));
      releases.add(release);
    });

  const stalledBody = (): Response => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"target":{"name":'));
        releases.add(() => {
          try {
            controller.close();
          } catch {
            // The client hung up first; nothing is left to close.
          }
        });
      },
    });
    return new Response(stream, { status: 200, headers: JSON_HEADERS });
  };

  const injected = (endpoint: HmrcEndpoint): Response | Promise<Response> | null => {
    const current = faults[endpoint];
    if (current === null) return null;
    current.remaining -= 1;
    if (current.remaining <= 0) faults[endpoint] = null;
    switch (current.fault) {
      case "throttled":
        return hmrcError(
          429,
          "MESSAGE_THROTTLED_OUT",
          "The request for the API is throttled as you have exceeded your quota.",
        );
      case "internal_error":
        return hmrcError(500, "INTERNAL_SERVER_ERROR", "Unknown error");
      case "unavailable":
        return hmrcError(503, "SERVER_ERROR", "Service unavailable");
      case "html_error":
        return html(502);
      case "html_ok":
        return html(200);
      case "not_subscribed":
        return hmrcError(
          403,
          "RESOURCE_FORBIDDEN",
          "The application is not subscribed to the API which it is attempting to invoke",
        );
      case "reject_tokens":
        return hmrcError(401, "INVALID_CREDENTIALS", "Invalid Authentication information provided");
      case "hang":
        return hang();
      case "stall_body":
        return stalledBody();
    }
  };

  const issueToken = async (request: Request, body: string): Promise<Response> => {
    const contentType = request.headers.get("content-type") ?? "";
    if (request.method !== "POST" || !contentType.startsWith("application/x-www-form-urlencoded")) {
      return oauthError(400, "invalid_request", "a form-encoded POST is required");
    }
    const form = new URLSearchParams(body);
    const grantType = form.get("grant_type");
    if (grantType === null) return oauthError(400, "invalid_request", "grant_type is required");
    if (grantType !== "client_credentials")
      return oauthError(400, "unsupported_grant_type", "grant type is unsupported");
    if (form.get("client_id") !== options.clientId || form.get("client_secret") !== options.clientSecret) {
      return oauthError(401, "invalid_client", "invalid client id or secret");
    }
    const requested = (form.get("scope") ?? "").split(" ").filter((scope) => scope !== "");
    if (requested.some((scope) => scope !== SCOPE))
      return oauthError(400, "invalid_scope", "scope is invalid");
    const accessToken = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
      byte.toString(16).padStart(2, "0"),
    ).join("");
    tokens.set(accessToken, { scopes: new Set(requested), expiresAt: Date.now() + lifetimeSeconds * 1000 });
    return json(200, {
      access_token: accessToken,
      token_type: "bearer",
      expires_in: lifetimeSeconds,
      scope: requested.join(" "),
    });
  };

  const lookUp = (request: Request, target: string, requester: string | undefined): Response => {
    if (request.method !== "GET") {
      return hmrcError(
        404,
        "MATCHING_RESOURCE_NOT_FOUND",
        "A resource with the name in the request can not be found in the API",
      );
    }
    if (request.headers.get("accept") !== ACCEPT_V2) {
      return hmrcError(406, "ACCEPT_HEADER_INVALID", "The accept header is missing or invalid");
    }
    const authorization = request.headers.get("authorization");
    if (authorization === null || authorization.trim() === "") {
      return hmrcError(401, "MISSING_CREDENTIALS", "Authentication information is not provided");
    }
    const bearer = /^Bearer (.+)$/i.exec(authorization)?.[1];
    const token = bearer === undefined ? undefined : tokens.get(bearer);
    if (token === undefined || token.expiresAt <= Date.now()) {
      return hmrcError(401, "INVALID_CREDENTIALS", "Invalid Authentication information provided");
    }
    if (!token.scopes.has(SCOPE)) {
      return hmrcError(
        403,
        "INVALID_SCOPE",
        "Cannot access the required resource. Ensure this token has all the required scopes.",
      );
    }

    const targetOk = VRN.test(target);
    const requesterOk = requester === undefined || VRN.test(requester);
    if (!targetOk && !requesterOk) {
      return hmrcError(
        400,
        "INVALID_REQUEST",
        "Invalid targetVrn and requesterVrn - Vrn parameters should be 9 or 12 digits",
      );
    }
    if (!requesterOk)
      return hmrcError(
        400,
        "INVALID_REQUEST",
        "Invalid requesterVrn - Vrn parameters should be 9 or 12 digits",
      );
    if (!targetOk)
      return hmrcError(400, "INVALID_REQUEST", "Invalid targetVrn - Vrn parameters should be 9 or 12 digits");

    const company = register.get(target);
    if (company === undefined)
      return hmrcError(404, "NOT_FOUND", "targetVrn does not match a registered company");
    if (requester !== undefined && !register.has(requester)) {
      return hmrcError(403, "INVALID_REQUEST", "requesterVrn does not match a registered company");
    }

    const address: Record<string, string> = {};
    company.lines.forEach((line, index) => {
      address[`line${index + 1}`] = line;
    });
    if (company.postcode !== undefined) address.postcode = company.postcode;
    address.countryCode = company.countryCode ?? "GB";
    const found = { target: { name: company.name, vatNumber: target, address } };
    return json(
      200,
      requester === undefined
        ? { ...found, processingDate: processingDate() }
        : { ...found, requester, consultationNumber: consultationNumber(), processingDate: processingDate() },
    );
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 255,
    async fetch(request) {
      const url = new URL(request.url);
      const body = await request.text();
      const lookup = LOOKUP.exec(url.pathname);
      const endpoint: RecordedRequest["endpoint"] =
        url.pathname === "/oauth/token" ? "token" : lookup !== null ? "lookup" : "other";
      requests.push({
        endpoint,
        method: request.method,
        path: url.pathname,
        headers: Object.fromEntries(request.headers),
        body,
      });
      if (endpoint === "other") {
        return hmrcError(
          404,
          "MATCHING_RESOURCE_NOT_FOUND",
          "A resource with the name in the request can not be found in the API",
        );
      }
      calls[endpoint] += 1;
      const fault = injected(endpoint);
      if (fault !== null) return fault;
      if (endpoint === "token") return issueToken(request, body);
      const [, target = "", requester] = lookup ?? [];
      return lookUp(
        request,
        decodePathSegment(target),
        requester === undefined ? undefined : decodePathSegment(requester),
      );
    },
  });

  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    calls,
    requests,
    addNumber(vrn, company) {
      register.set(vrn, company);
    },
    setBehaviour(endpoint, fault, { times = Number.POSITIVE_INFINITY } = {}) {
      faults[endpoint] = fault === null ? null : { fault, remaining: times };
    },
    expireTokens() {
      for (const token of tokens.values()) token.expiresAt = 0;
    },
    issuedTokens() {
      return [...tokens.keys()];
    },
    async stop() {
      for (const release of releases) release();
      releases.clear();
      await server.stop(true);
    },
  };
}
