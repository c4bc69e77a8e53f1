import type { Account } from "../accounts/authenticator.ts";
import type { Meter } from "../accounts/meter.ts";
import { periodAt, resetAtOf } from "../accounts/period.ts";
import type { Usage, UsageBlock } from "../http/schemas.ts";
import { ApiError } from "../kernel/errors.ts";
import type { Metrics } from "../observability/metrics.ts";

/** The `usage` block of a validate response: the state after that request. */
export function usageBlock(account: Account, used: number, resetMs: number): UsageBlock {
  return {
    plan: account.plan.id,
    used,
    limit: account.monthlyQuota,
    remaining: account.monthlyQuota === null ? null : Math.max(0, account.monthlyQuota - used),
    reset_at: resetAtOf(resetMs),
  };
}

/** Quota headers, sent to direct keys only (gateway subscribers are billed by the gateway). */
export function quotaHeaders(account: Account, used: number, resetMs: number): Record<string, string> {
  if (account.kind !== "direct" || account.monthlyQuota === null) return {};
  return {
    "x-quota-limit": String(account.monthlyQuota),
    "x-quota-remaining": String(Math.max(0, account.monthlyQuota - used)),
    "x-quota-reset": resetAtOf(resetMs),
  };
}

/** The body of GET /usage. Reading usage counts nothing. */
export async function usageReport(
  meter: Meter,
  account: Account,
  nowMs: number,
  metrics?: Metrics,
): Promise<Usage> {
  const period = periodAt(nowMs);
  let usage: { used: number; requests: number };
  try {
    usage = await meter.usage(account.keyId, nowMs);
  } catch {
    metrics?.storeErrors.inc({ store: "database", operation: "usage" });
    throw new ApiError("service_unavailable", "usage cannot be read right now; try again shortly", {
      retryAfter: 5,
    });
  }
  const { used, requests } = usage;
  return {
    plan: account.plan.id,
    plan_name: account.plan.name,
    price_usd_per_month: account.plan.priceUsdPerMonth,
    monthly_quota: account.monthlyQuota,
    used,
    remaining: account.monthlyQuota === null ? null : Math.max(0, account.monthlyQuota - used),
    period_start: period.startAt,
    reset_at: period.resetAt,
    rate_limit_per_minute: account.ratePerMinute,
    requests_this_month: requests,
    key_id: account.kind === "direct" ? account.keyId : null,
  };
}
