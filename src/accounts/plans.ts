import type { PlanId } from "../http/schemas.ts";

export type Plan = {
  id: PlanId;
  name: string;
  priceUsdPerMonth: number;
  /** Billable validations per UTC month; null when billing happens elsewhere (the gateway). */
  monthlyQuota: number | null;
  ratePerMinute: number;
  /**
   * What a key's batches may hold at once and in a day (UTC); null where batches are not
   * offered (the gateway bills per call, which a batch cannot be).
   */
  batches: BatchLimits | null;
  /** Numbers one key may watch (`src/monitors/`); null where monitors are not offered, as batches. */
  monitors: number | null;
};

/** The volume of batches one key may have: see `src/batches/volume.ts`. */
export type BatchLimits = {
  /** Batches queued or running at the same time. */
  active: number;
  /** Items in the batches created in one UTC day. */
  itemsPerDay: number;
};

/**
 * The spec's plan table, and our limits on batches and monitors (README, "Plans"). The gateway plan's
 * per-minute limit comes from configuration.
 */
export function planCatalogue(gatewayRatePerMinute: number): Record<PlanId, Plan> {
  return {
    free: {
      id: "free",
      name: "Free",
      priceUsdPerMonth: 0,
      monthlyQuota: 100,
      ratePerMinute: 10,
      batches: { active: 2, itemsPerDay: 1_000 },
      monitors: 1_000,
    },
    basic: {
      id: "basic",
      name: "Basic",
      priceUsdPerMonth: 19,
      monthlyQuota: 2000,
      ratePerMinute: 60,
      batches: { active: 5, itemsPerDay: 10_000 },
      monitors: 10_000,
    },
    pro: {
      id: "pro",
      name: "Pro",
      priceUsdPerMonth: 49,
      monthlyQuota: 10000,
      ratePerMinute: 180,
      batches: { active: 10, itemsPerDay: 50_000 },
      monitors: 100_000,
    },
    rapidapi: {
      id: "rapidapi",
      name: "API marketplace",
      priceUsdPerMonth: 0,
      monthlyQuota: null,
      ratePerMinute: gatewayRatePerMinute,
      batches: null,
      monitors: null,
    },
  };
}

export const DIRECT_PLAN_IDS = ["free", "basic", "pro"] as const satisfies readonly PlanId[];
