import type { PlanId, Usage } from "../http/schemas.ts";
import type { Clock } from "../kernel/clock.ts";
import { usageReport } from "../validation/usage.ts";
import type { WebhookSecrets } from "../webhooks/secrets.ts";
import { accountOf } from "./authenticator.ts";
import type { KeyRecord, KeyStore } from "./key-store.ts";
import type { Meter } from "./meter.ts";
import { DIRECT_PLAN_IDS, type Plan } from "./plans.ts";

export type CreatedKey = { key_id: string; api_key: string; plan: PlanId };

export type KeySummary = {
  key_id: string;
  kind: "direct" | "gateway";
  name: string | null;
  plan: PlanId;
  monthly_quota: number | null;
  rate_per_minute: number;
  created_at: string;
  revoked_at: string | null;
};

export type NewKey = { plan: PlanId; name: string | null; quota: number | null; rate: number | null };

/** The operator's key commands. Both the command line and the server's admin socket run these. */
export interface KeyAdmin {
  create(input: NewKey): Promise<CreatedKey>;
  /** Null when there is no such key. */
  revoke(keyId: string): Promise<KeySummary | null>;
  list(): Promise<KeySummary[]>;
  /** Null when there is no such key. */
  usage(keyId: string): Promise<Usage | null>;
  /** The key's webhook signing secret, created on first use, or a new one with `rotate`. Null when there is no such key. */
  webhookSecret(keyId: string, rotate: boolean): Promise<WebhookSecretShown | null>;
}

export type WebhookSecretShown = { key_id: string; webhook_secret: string };

export function keyAdmin(deps: {
  keys: KeyStore;
  meter: Meter;
  plans: Record<PlanId, Plan>;
  clock: Clock;
  webhookSecrets: WebhookSecrets;
}): KeyAdmin {
  const summary = (record: KeyRecord): KeySummary => {
    const account = accountOf(record, deps.plans);
    return {
      key_id: record.id,
      kind: record.kind,
      name: record.name,
      plan: record.planId,
      monthly_quota: account.monthlyQuota,
      rate_per_minute: account.ratePerMinute,
      created_at: record.createdAt.toISOString(),
      revoked_at: record.revokedAt?.toISOString() ?? null,
    };
  };
  return {
    async create(input) {
      const { record, secret } = await deps.keys.create({
        planId: input.plan,
        name: input.name,
        monthlyQuota: input.quota,
        ratePerMinute: input.rate,
      });
      return { key_id: record.id, api_key: secret, plan: record.planId };
    },
    async revoke(keyId) {
      const record = await deps.keys.revoke(keyId, new Date(deps.clock.now()));
      return record && summary(record);
    },
    async list() {
      return (await deps.keys.list()).map(summary);
    },
    async usage(keyId) {
      const record = await deps.keys.findById(keyId);
      return record && usageReport(deps.meter, accountOf(record, deps.plans), deps.clock.now());
    },
    async webhookSecret(keyId, rotate) {
      const record = await deps.keys.findById(keyId);
      if (!record) return null;
      const secret = rotate ? await deps.webhookSecrets.rotate(keyId) : await deps.webhookSecrets.get(keyId);
      return { key_id: keyId, webhook_secret: secret };
    },
  };
}

/** Checks the options of `keys create`, wherever they come from; throws a message for the operator. */
export function checkNewKey(input: {
  plan?: unknown;
  name?: unknown;
  quota?: unknown;
  rate?: unknown;
}): NewKey {
  const plans: readonly string[] = DIRECT_PLAN_IDS;
  if (typeof input.plan !== "string" || !plans.includes(input.plan)) {
    throw new Error(`--plan must be one of ${DIRECT_PLAN_IDS.join(", ")}`);
  }
  const name = input.name ?? null;
  if (name !== null && (typeof name !== "string" || name.length > 200)) {
    throw new Error("--name must be text of at most 200 characters");
  }
  const whole = (value: unknown, option: string, minimum: number): number | null => {
    if (value === undefined || value === null) return null;
    const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof number !== "number" || !Number.isSafeInteger(number) || number < minimum) {
      throw new Error(`${option} must be a whole number of at least ${minimum}`);
    }
    return number;
  };
  return {
    plan: input.plan as PlanId,
    name,
    quota: whole(input.quota, "--quota", 0),
    rate: whole(input.rate, "--rate", 1),
  };
}
