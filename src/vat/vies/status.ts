import { isRecord, parseJson } from "../json.ts";
import { endpoint, exchange, type FetchLike, startDeadline } from "../transport.ts";

export type ViesCountryStatus = {
  countryCode: string;
  /** `Available`, `Unavailable` or `Monitoring Disabled` (which means unknown, not down); kept as sent. */
  availability: string;
};

export type ViesStatusResult =
  | { ok: true; vowAvailable: boolean; countries: ViesCountryStatus[] }
  /** `detail` is the VIES error (`SERVICE_UNAVAILABLE`), `ACTION_FAILED`, `HTTP_503`, `UNPARSEABLE`, `NETWORK` or `CLIENT_TIMEOUT`. */
  | { ok: false; detail: string };

export type ViesStatusClient = {
  /** GETs the live availability. Never throws. */
  fetchStatus(timeoutMs: number): Promise<ViesStatusResult>;
};

const STATUS_PATH = "/taxation_customs/vies/rest-api/check-status";

function countryStatus(entry: unknown): ViesCountryStatus[] {
  if (!isRecord(entry)) return [];
  const { countryCode, availability } = entry;
  return typeof countryCode === "string" && typeof availability === "string"
    ? [{ countryCode, availability }]
    : [];
}

/**
 * Reads a `check-status` body. Errors are detected by `actionSucceed: false` or `errorWrappers`,
 * never by HTTP status alone. Country entries that lack a code or an availability are dropped;
 * a body without `vow.available` and a `countries` array is unparseable.
 */
export function parseCheckStatus(body: unknown): ViesStatusResult {
  if (!isRecord(body)) return { ok: false, detail: "UNPARSEABLE" };
  if (body.actionSucceed === false || body.errorWrappers !== undefined) {
    const wrappers = Array.isArray(body.errorWrappers) ? body.errorWrappers : [];
    const first: unknown = wrappers[0];
    const error = isRecord(first) && typeof first.error === "string" ? first.error : "ACTION_FAILED";
    return { ok: false, detail: error };
  }
  const vowAvailable = isRecord(body.vow) ? body.vow.available : undefined;
  if (typeof vowAvailable !== "boolean" || !Array.isArray(body.countries)) {
    return { ok: false, detail: "UNPARSEABLE" };
  }
  return { ok: true, vowAvailable, countries: body.countries.flatMap(countryStatus) };
}

/** Client of the VIES REST `check-status` endpoint (advisory availability per member state). */
export function createViesStatusClient(config: { baseUrl: string; fetch?: FetchLike }): ViesStatusClient {
  const url = endpoint(config.baseUrl, STATUS_PATH);
  const fetchFn: FetchLike = config.fetch ?? fetch;
  return {
    async fetchStatus(timeoutMs) {
      const init = { method: "GET", headers: { Accept: "application/json" } };
      const reply = await exchange(fetchFn, url, init, startDeadline(timeoutMs));
      if ("failure" in reply) return { ok: false, detail: reply.failure };
      const parsed = parseCheckStatus(parseJson(reply.body));
      if (reply.status >= 200 && reply.status <= 299) return parsed;
      // Outside 2xx, only a VIES error body says more than the status itself.
      return !parsed.ok && parsed.detail !== "UNPARSEABLE"
        ? parsed
        : { ok: false, detail: `HTTP_${reply.status}` };
    },
  };
}
