import { type Static, t } from "elysia";
import type { Clock } from "../kernel/clock.ts";
import { stringEnum } from "../kernel/enum-schema.ts";
import type { AuthoritySource, EnabledAuthorities } from "./authorities.ts";
import type { UpstreamOutcome, VatUpstream } from "./upstream.ts";

/** The national services beside VIES, and the country each answers for. */
const NATIONAL_REGISTERS = [
  { source: "uk_authority", country: "GB" },
  { source: "ch_uid", country: "CH" },
  { source: "no_brreg", country: "NO" },
] as const satisfies ReadonlyArray<{ source: AuthoritySource; country: string }>;

export type NationalSource = (typeof NATIONAL_REGISTERS)[number]["source"];

export const RegisterStatusSchema = t.Object(
  {
    country_code: t.String({
      description: "ISO 3166-1 alpha-2 code of the numbers it answers for: GB, CH, NO",
    }),
    source: stringEnum(["uk_authority", "ch_uid", "no_brreg"], {
      description: "the service, as `VatResult.source` names it",
    }),
    availability: stringEnum(["available", "unavailable", "unknown", "disabled"], {
      description:
        "as this instance last found it: available (its last call was answered), unavailable (its last call failed), unknown (no call yet), disabled (switched off on this deployment, its numbers answered service_unavailable)",
    }),
    checked_at: t.Union([t.String({ format: "date-time" }), t.Null()], {
      description: "when that last call was answered or failed; null when there was none",
    }),
  },
  { title: "RegisterStatus" },
);
export type RegisterStatus = Static<typeof RegisterStatusSchema>;

/** Whether an outcome says the service is up: it answered, refused the input or throttled. */
function answered(outcome: UpstreamOutcome): boolean {
  return (
    outcome.kind === "verdict" || outcome.code === "invalid_input" || outcome.code === "upstream_rate_limited"
  );
}

export interface RegisterWatch {
  /** The client, with each of its outcomes noted. */
  watched(source: NationalSource, upstream: VatUpstream): VatUpstream;
  /** A row per national service, for GET /status. */
  rows(): RegisterStatus[];
}

/**
 * What this instance last saw of each national service: none of them publishes its
 * availability, so their calls are the only sign (a call its caller gave up on says nothing).
 */
export function createRegisterWatch(clock: Clock, enabled: EnabledAuthorities): RegisterWatch {
  const last = new Map<NationalSource, { available: boolean; at: number }>();
  return {
    watched(source, upstream) {
      return {
        async check(request, options) {
          const outcome = await upstream.check(request, options);
          if (outcome.kind === "verdict" || outcome.detail !== "ABORTED") {
            last.set(source, { available: answered(outcome), at: clock.now() });
          }
          return outcome;
        },
      };
    },
    rows() {
      return NATIONAL_REGISTERS.map(({ source, country }) => {
        const seen = last.get(source);
        const availability = !enabled[source]
          ? "disabled"
          : seen === undefined
            ? "unknown"
            : seen.available
              ? "available"
              : "unavailable";
        return {
          country_code: country,
          source,
          availability,
          checked_at: seen === undefined ? null : new Date(seen.at).toISOString(),
        };
      });
    },
  };
}
