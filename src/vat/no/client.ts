import type { Clock } from "../../kernel/clock.ts";
import { disclosed } from "../disclosed.ts";
import { isRecord, parseJson } from "../json.ts";
import { endpoint, exchange, type FetchLike, startDeadline } from "../transport.ts";
import { type UpstreamOutcome, upstreamFault, type VatUpstream } from "../upstream.ts";

export const NO_BRREG_PRODUCTION_BASE_URL = "https://data.brreg.no";

const UNIT_PATH = "/enhetsregisteret/api/enheter/";

export type NoBrregClientConfig = {
  /** Scheme and host of Brønnøysundregistrene's open data; the API path is appended. */
  baseUrl: string;
  clock: Clock;
  fetch?: FetchLike;
};

const text = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null;

/** `forretningsadresse`: its lines, then `postnummer poststed`, then the country when it is not Norway. */
export function brregAddress(address: unknown): string | null {
  if (!isRecord(address)) return null;
  const lines = Array.isArray(address.adresse) ? address.adresse.map(text) : [];
  const place = [text(address.postnummer), text(address.poststed)].filter((part) => part !== null).join(" ");
  const country = text(address.landkode) === "NO" ? null : text(address.land);
  return disclosed([...lines, place, country].filter((line) => line !== null && line !== "").join("\n"));
}

/**
 * The client of the Norwegian Register of Legal Entities (Enhetsregisteret, `GET
 * /enhetsregisteret/api/enheter/{orgnr}`), for NO numbers. A number is registered when its
 * unit is in the VAT register (`registrertIMvaregisteret`) and not deleted (no `slettedato`);
 * a deleted unit, one outside the VAT register, 404 (no such unit) and 410 (removed) are not.
 * Never throws: every other answer is an UpstreamFault, never a verdict.
 */
export function createNoBrregClient(config: NoBrregClientConfig): VatUpstream {
  const base = endpoint(config.baseUrl, UNIT_PATH);
  const fetchFn: FetchLike = config.fetch ?? fetch;
  const headers = { Accept: "application/json" };

  const verdict = (valid: boolean, unit: Record<string, unknown> | null): UpstreamOutcome => ({
    kind: "verdict",
    valid,
    name: valid ? disclosed(text(unit?.navn)) : null,
    address: valid ? brregAddress(unit?.forretningsadresse) : null,
    checkedAt: new Date(config.clock.now()).toISOString(),
    consultationNumber: null,
    traderMatch: null,
    source: "no_brreg",
  });

  return {
    async check(request, options) {
      // The number passed the format check: nine digits, nothing to escape.
      const init = { method: "GET", headers };
      const reply = await exchange(
        fetchFn,
        base + request.number,
        init,
        startDeadline(options.timeoutMs, options.signal),
      );
      if ("failure" in reply) {
        return upstreamFault("service_unavailable", reply.failure, reply.failure !== "ABORTED");
      }
      const { status } = reply;
      if (status === 404 || status === 410) return verdict(false, null);
      if (status === 429) return upstreamFault("upstream_rate_limited", "HTTP_429", true);
      if (status === 400) return upstreamFault("invalid_input", "HTTP_400", false);
      if (status < 200 || status > 299) {
        return upstreamFault("service_unavailable", `HTTP_${status}`, status >= 502 && status <= 504);
      }
      const unit = parseJson(reply.body);
      if (
        !isRecord(unit) ||
        (typeof unit.registrertIMvaregisteret !== "boolean" && unit.slettedato === undefined)
      ) {
        return upstreamFault("service_unavailable", "UNPARSEABLE", false);
      }
      return verdict(unit.registrertIMvaregisteret === true && unit.slettedato === undefined, unit);
    },
  };
}
