import { createVatIbanClient, type VatIbanClient } from "@vat-iban/client";

/** Why a call did not give what was asked, in the API's own words when it answered. */
export type Problem = {
  /** The HTTP status; null when no answer came. */
  status: number | null;
  code: string;
  message: string;
  /** When a retry may succeed (from `Retry-After`), as a time. */
  retryAt: Date | null;
};

export type Outcome<T> = { ok: true; data: T; response: Response } | { ok: false; problem: Problem };

type Answer<T> = { data?: T; error?: unknown; response: Response };

const KEY_STORAGE = "vat-iban-console.api-key";

/** The key pasted in this tab: sessionStorage only, so it goes when the tab closes. */
export const storedKey = {
  read: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  write: (key: string) => sessionStorage.setItem(KEY_STORAGE, key),
  clear: () => sessionStorage.removeItem(KEY_STORAGE),
};

function problemOf(response: Response, error: unknown): Problem {
  const retryAfter = Number(response.headers.get("retry-after"));
  const retryAt =
    Number.isFinite(retryAfter) && retryAfter > 0 ? new Date(Date.now() + retryAfter * 1000) : null;
  const body = (error as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof body?.code === "string" && typeof body.message === "string") {
    return { status: response.status, code: body.code, message: body.message, retryAt };
  }
  return {
    status: response.status,
    code: `http_${response.status}`,
    message: `The service answered ${response.status} ${response.statusText}`.trim(),
    retryAt,
  };
}

/**
 * The API as the console uses it: the typed client with the key, every answer turned into an
 * Outcome, and a refused key (401, or 403 for a revoked one) handed to `onRefused` so the page
 * can ask for another.
 */
export class Session {
  readonly api: VatIbanClient;

  constructor(
    readonly key: string,
    private readonly onRefused: (problem: Problem) => void,
  ) {
    this.api = createVatIbanClient({ baseUrl: location.origin, apiKey: key });
  }

  async ask<T>(call: (api: VatIbanClient) => Promise<Answer<T>>): Promise<Outcome<T>> {
    let answer: Answer<T>;
    try {
      answer = await call(this.api);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        problem: {
          status: null,
          code: "unreachable",
          message: `The service could not be reached (${reason}). Check the connection and try again.`,
          retryAt: null,
        },
      };
    }
    const { data, error, response } = answer;
    if (response.ok && data !== undefined) return { ok: true, data, response };
    const problem = problemOf(response, error);
    if (response.status === 401 || response.status === 403) this.onRefused(problem);
    return { ok: false, problem };
  }
}
