export type RetryOptions = {
  /** Sent on every attempt; one per operation. A key of your own (an invoice id, say) also covers a restart of your process. */
  idempotencyKey?: string;
  /** Attempts in all, the first included; 4 by default. */
  attempts?: number;
  /** The first backoff when the answer names no wait (doubles per attempt); 500 ms by default. */
  baseDelayMs?: number;
  /** The longest wait before an attempt; an answer asking for longer is returned, not waited out. 60 s by default (what the API asks while a member state is down). */
  maxDelayMs?: number;
  /** How to wait; `setTimeout` by default. */
  sleep?: (ms: number) => Promise<void>;
};

/** What openapi-fetch answers, as far as retrying needs it. */
type Answer = { response: Response; error?: unknown };

/** Answers that say the request was not carried out, and that a later attempt may succeed. */
const TRY_AGAIN = new Set([409, 429, 502, 503, 504]);

const codeOf = (error: unknown) => (error as { error?: { code?: unknown } } | undefined)?.error?.code;

/**
 * Calls `send` until it gets an answer worth keeping, with the same `Idempotency-Key` on every
 * attempt, so that a request the service did carry out before the connection broke is not
 * carried out (and billed) a second time:
 *
 * ```ts
 * const { data, error } = await retrySafely((headers) => api.POST("/batches", { body, headers }));
 * ```
 *
 * Retried: a network failure (`fetch` threw: the answer may have been lost; the service kept
 * it, and the retry gets it with `Idempotent-Replayed: true`), 409 `idempotency_key_in_progress`
 * (the first attempt is still running), 429 `rate_limited`, 502, 503, 504 — the answers the
 * service does not keep under a key. Waits `Retry-After` when the answer has it, else backs off
 * exponentially with jitter. Not retried: every other answer, including 429 `quota_exceeded` (it
 * lasts until the month's reset) and 422 `idempotency_key_reused` (the key was used for another
 * request), or a wait longer than `maxDelayMs`.
 */
export async function retrySafely<T extends Answer>(
  send: (headers: { "Idempotency-Key": string }) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const headers = { "Idempotency-Key": options.idempotencyKey ?? crypto.randomUUID() };
  const attempts = Math.max(1, options.attempts ?? 4);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    let delay: number;
    try {
      const answer = await send(headers);
      const { status } = answer.response;
      const retryable =
        TRY_AGAIN.has(status) && !(status === 429 && codeOf(answer.error) === "quota_exceeded");
      if (!retryable || attempt >= attempts) return answer;
      const retryAfter = Number(answer.response.headers.get("retry-after"));
      delay = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : jittered(backoff);
      if (delay > maxDelayMs) return answer;
    } catch (error) {
      if (attempt >= attempts) throw error;
      delay = jittered(backoff);
    }
    await sleep(delay);
  }
}

/** Between half and all of `ms`: clients that failed together do not retry together. */
const jittered = (ms: number) => ms / 2 + Math.random() * (ms / 2);
