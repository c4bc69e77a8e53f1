import { createHash, timingSafeEqual } from "node:crypto";
import { Batcher } from "../batch.ts";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import type { PlanId } from "../http/schemas.ts";
import type { KeyRecord, KeyStore } from "./key-store.ts";
import { hashSecret, isWellFormedSecret } from "./keys.ts";
import type { Plan } from "./plans.ts";

/** Who is calling, with the limits that apply to them. */
export type Account = {
  /** Id of the usage identity (a direct key or a gateway subscriber). */
  keyId: string;
  kind: "direct" | "gateway";
  plan: Plan;
  /** Effective monthly quota: the key's override, else the plan's; null when none. */
  monthlyQuota: number | null;
  ratePerMinute: number;
};

export type AuthenticatorOptions = {
  keys: KeyStore;
  plans: Record<PlanId, Plan>;
  clock: Clock;
  /** How long a resolved key may be used without asking the database again. */
  cacheTtlMs: number;
  /** The shared secret the marketplace gateway sends; null disables the gateway route. */
  gatewayProxySecret: string | null;
  maxCachedKeys?: number;
  /** Told when a lookup fails because the database does, for metrics. */
  onDatabaseError?: () => void;
};

const GATEWAY_HEADERS = ["x-gateway-proxy-secret", "x-gateway-user", "x-gateway-key", "x-gateway-host"];

/** The limits that apply to a key: its own overrides, else its plan's. */
export function accountOf(record: KeyRecord, plans: Record<PlanId, Plan>): Account {
  const plan = plans[record.planId];
  // Plans come from code; a row naming one no longer offered cannot be served.
  if (!plan) throw new ApiError("forbidden", "this API key's plan is no longer offered");
  return {
    keyId: record.id,
    kind: record.kind,
    plan,
    monthlyQuota: record.kind === "gateway" ? null : (record.monthlyQuota ?? plan.monthlyQuota),
    ratePerMinute: record.ratePerMinute ?? plan.ratePerMinute,
  };
}

type CacheEntry = { record: KeyRecord | null; fetchedAt: number };

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * Resolves the credential of a request to an Account. Resolved keys — and unknown ones —
 * are kept in process for at most `cacheTtlMs`, so a busy key costs no database round
 * trip, and a revocation reaches every instance within that bound. Past half the bound a
 * key is refreshed in the background; past the bound the request waits for the database.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly gatewaySecretDigest: Buffer | null;
  /** Lookups of many keys travel in one query: busy services refresh hundreds of keys a second. */
  private readonly directKeys: Batcher<string, KeyRecord | null>;

  constructor(private readonly options: AuthenticatorOptions) {
    this.gatewaySecretDigest =
      options.gatewayProxySecret === null ? null : digest(options.gatewayProxySecret);
    this.directKeys = new Batcher(async (hashes) => {
      const found = await options.keys.findBySecretHashes([...new Set(hashes)]);
      return hashes.map((hash) => found.get(hash) ?? null);
    });
  }

  /** Throws ApiError `unauthorized` (401) or `forbidden` (403). */
  async authenticate(headers: Headers): Promise<Account> {
    if (GATEWAY_HEADERS.some((name) => headers.has(name))) return this.authenticateGateway(headers);
    const secret = credentialOf(headers);
    if (secret === null) {
      throw new ApiError(
        "unauthorized",
        "send your API key in the X-API-Key header (or Authorization: Bearer)",
      );
    }
    if (!isWellFormedSecret(secret)) throw new ApiError("unauthorized", "the API key is not valid");
    const record = await this.lookup(`d:${hashSecret(secret)}`, (cacheKey) =>
      this.directKeys.submit(cacheKey.slice(2)),
    );
    if (!record) throw new ApiError("unauthorized", "the API key is not valid");
    return this.accountOf(record);
  }

  private async authenticateGateway(headers: Headers): Promise<Account> {
    const offered = headers.get("x-gateway-proxy-secret");
    if (this.gatewaySecretDigest === null || offered === null) {
      throw new ApiError("unauthorized", "gateway requests must come through the gateway");
    }
    if (!timingSafeEqual(digest(offered), this.gatewaySecretDigest)) {
      throw new ApiError("unauthorized", "gateway requests must come through the gateway");
    }
    const subscriber = (headers.get("x-gateway-user") || headers.get("x-gateway-key") || "").trim();
    if (subscriber === "" || subscriber.length > 200) {
      throw new ApiError("unauthorized", "the gateway did not identify the subscriber");
    }
    const record = await this.lookup(`g:${subscriber}`, (cacheKey) =>
      this.options.keys.gatewaySubscriber(cacheKey.slice(2)),
    );
    if (!record) throw new ApiError("unauthorized", "the gateway did not identify the subscriber");
    return this.accountOf(record);
  }

  private accountOf(record: KeyRecord): Account {
    if (record.revokedAt !== null) throw new ApiError("forbidden", "this API key has been revoked");
    return accountOf(record, this.options.plans);
  }

  private async lookup(
    cacheKey: string,
    load: (cacheKey: string) => Promise<KeyRecord | null>,
  ): Promise<KeyRecord | null> {
    const age = (entry: CacheEntry | undefined) =>
      entry ? this.options.clock.now() - entry.fetchedAt : Infinity;
    const ttl = this.options.cacheTtlMs;
    const entry = this.cache.get(cacheKey);
    if (age(entry) < ttl) {
      // A failed background refresh is retried by a later request; the entry stays valid until its bound.
      if (age(entry) >= ttl / 2) this.refresh(cacheKey, load).catch(() => {});
      return entry?.record ?? null;
    }
    try {
      await this.refresh(cacheKey, load);
    } catch {
      this.options.onDatabaseError?.();
      throw new ApiError("service_unavailable", "the key database is unreachable; try again shortly", {
        retryAfter: 5,
      });
    }
    return this.cache.get(cacheKey)?.record ?? null;
  }

  /** One database lookup per key at a time, however many requests are waiting for it. */
  private refresh(cacheKey: string, load: (cacheKey: string) => Promise<KeyRecord | null>): Promise<void> {
    let flight = this.inflight.get(cacheKey);
    if (!flight) {
      // Stamped with when the lookup started: the answer is no newer than that, so the bound
      // on trusting it (and on a revocation's delay) holds from there.
      const fetchedAt = this.options.clock.now();
      flight = load(cacheKey)
        .then((record) => {
          this.cache.delete(cacheKey);
          this.cache.set(cacheKey, { record, fetchedAt });
          const oldest =
            this.cache.size > (this.options.maxCachedKeys ?? 100_000) ? this.cache.keys().next() : null;
          if (oldest && !oldest.done) this.cache.delete(oldest.value);
        })
        .finally(() => this.inflight.delete(cacheKey));
      this.inflight.set(cacheKey, flight);
    }
    return flight;
  }
}

function credentialOf(headers: Headers): string | null {
  // An empty X-API-Key (a client template left blank) does not hide a Bearer token.
  const apiKey = headers.get("x-api-key")?.trim();
  if (apiKey) return apiKey;
  const authorization = headers.get("authorization");
  if (authorization === null) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1] ?? "";
}
