/**
 * HTTP for the upstream clients (VIES, the Swiss and Norwegian registers): one exchange read in
 * full under one deadline, never throwing.
 */

/** The subset of `fetch` the upstream clients use; tests and the app may pass their own. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** A response read in full. */
export type HttpReply = { status: number; body: string };

/**
 * Why no response arrived: our own deadline passed, the caller's signal aborted, or the
 * connection failed (refused, reset, DNS, malformed HTTP).
 */
export type TransportFailure = { failure: "CLIENT_TIMEOUT" | "ABORTED" | "NETWORK" };

/** Our deadline for one logical call, merged with the caller's signal. */
export type Deadline = { signal: AbortSignal; timeout: AbortSignal };

/**
 * Starts a deadline of `timeoutMs` (negative counts as zero). Retries inside one call share it,
 * so the caller's budget holds for the whole call.
 */
export function startDeadline(timeoutMs: number, caller?: AbortSignal): Deadline {
  const timeout = AbortSignal.timeout(Math.max(0, timeoutMs));
  return { signal: caller ? AbortSignal.any([timeout, caller]) : timeout, timeout };
}

function classify(deadline: Deadline): TransportFailure {
  if (!deadline.signal.aborted) return { failure: "NETWORK" };
  return { failure: deadline.signal.reason === deadline.timeout.reason ? "CLIENT_TIMEOUT" : "ABORTED" };
}

/**
 * One HTTP exchange with the body read in full under the deadline, whatever the status.
 * Never throws. Redirects are not followed: no upstream has a reason to redirect a call, and a
 * followed POST would silently turn into a GET.
 */
export async function exchange(
  fetchFn: FetchLike,
  url: string,
  init: RequestInit,
  deadline: Deadline,
): Promise<HttpReply | TransportFailure> {
  try {
    const response = await fetchFn(url, { ...init, signal: deadline.signal, redirect: "manual" });
    return { status: response.status, body: await response.text() };
  } catch {
    return classify(deadline);
  }
}

/** Joins the configured base URL (with or without a trailing slash) and an absolute path. */
export function endpoint(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, "") + path;
}
