import type { PlanId } from "../http/schemas.ts";

export type Plan = {
  id: PlanId;
  name: string;
  priceUsdPerMonth: number;
  /** Billable validations per UTC month; null when billing happens elsewhere (the gateway). */
  monthlyQuota: number | null;
  ratePerMinute: number;
};

/** The spec's plan table. The gateway plan's per-minute limit comes from configuration. */
export function planCatalogue(gatewayRatePerMinute: number): Record<PlanId, Plan> {
  return {
    free: { id: "free", name: "Free", priceUsdPerMonth: 0, monthlyQuota: 100, ratePerMinute: 10 },
    basic: { id: "basic", name: "Basic", priceUsdPerMonth: 19, monthlyQuota: 2000, ratePerMinute: 60 },
    pro: { id: "pro", name: "Pro", priceUsdPerMonth: 49, monthlyQuota: 10000, ratePerMinute: 180 },
    rapidapi: {
      id: "rapidapi",
      name: "API marketplace",
      priceUsdPerMonth: 0,
      monthlyQuota: null,
      ratePerMinute: gatewayRatePerMinute,
    },
  };
}

export const DIRECT_PLAN_IDS = ["free", "basic", "pro"] as const satisfies readonly PlanId[];
