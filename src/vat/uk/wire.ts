/** One HTTP answer from HMRC, as read off the wire. */
export type HmrcReply = { status: number; body: string };

/**
 * `<prefix>HTTP_<status>`, plus HMRC's error code when it is a plain identifier (never free
 * text from the wire), for logs and metrics.
 */
export function faultDetail(prefix: string, status: number, code: string | null): string {
  const suffix = code !== null && /^[A-Za-z0-9_]{1,60}$/.test(code) ? `_${code}` : "";
  return `${prefix}HTTP_${status}${suffix}`;
}

/**
 * 502, 503 and 504 come from the platform's edge and usually pass within seconds; a 500 is an
 * error the API raised itself and tends to repeat.
 */
export function isTransientStatus(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

/** A trimmed, non-empty string, or null. */
export function text(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

/** The fetch function the clients use; tests and callers may pass their own. */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/**
 * Sends one request and reads the whole body. Null when no complete reply arrived (refused
 * connection, reset, abort): the caller tells a timeout from a network failure by its signals.
 */
export async function exchange(fetch: Fetch, url: string, init: RequestInit): Promise<HmrcReply | null> {
  try {
    // Never follow a redirect: it would carry the bearer token to wherever it points.
    const response = await fetch(url, { ...init, redirect: "manual" });
    return { status: response.status, body: await response.text() };
  } catch {
    return null;
  }
}
