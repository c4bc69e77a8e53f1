import { createHash, timingSafeEqual } from "node:crypto";
import type { PlanId } from "../http/schemas.ts";
import { Batcher } from "../kernel/batcher.ts";
import type { Clock } from "../kernel/clock.ts";
import { ApiError } from "../kernel/errors.ts";
import type { KeyRecord, KeyStore } from "./key-store.ts";
import { LEGACY_PREFIX_LENGTH } from "./key-store.ts";
import { hashSecret, hasValidCheck, type SecretShape, secretShape } from "./keys.ts";
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
  /** How long a resolved key (or a key found missing) may be used without asking the database again. */
  cacheTtlMs: number;
  /** The shared secret the marketplace gateway sends; null disables the gateway route. */
  gatewayProxySecret: string | null;
  /** Keys held in process, at most. */
  maxCachedKeys?: number;
  /** Keys found missing held in process, at most: apart from real keys, so misses never evict them. */
  maxMissingKeys?: number;
  /** Told when a lookup fails because the database does, for metrics. */
  onDatabaseError?: () => void;
  /** Told of every key the database is asked for, for metrics. */
  onLookup?: (result: "found" | "missing") => void;
};

const GATEWAY_HEADERS = ["x-gateway-proxy-secret", "x-gateway-user", "x-gateway-key", "x-gateway-host"];

/** How often the hashes of the keys issued without a check are read again. */
const LEGACY_REFRESH_MS = 60_000;

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

type Cached<T> = { value: T; fetchedAt: number };

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

const INVALID_KEY = "the API key is not valid";

/**
 * Resolves the credential of a request to an Account. Resolved keys — and, in a cache of
 * their own, keys found missing — are kept in process for at most `cacheTtlMs`, so a busy key
 * costs no database round trip, a revocation reaches every instance within that bound, and a
 * flood of unknown keys never evicts a real one. Past half the bound a key is refreshed in the
 * background; past the bound the request waits for the database. A forged key is refused
 * before any lookup: a key with a check must carry the right one, and a key without one must
 * be among the keys issued before checks existed (their hashes are held in process).
 */
export class Authenticator {
  private readonly found = new Map<string, Cached<KeyRecord>>();
  private readonly missing = new Map<string, Cached<null>>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly gatewaySecretDigest: Buffer | null;
  /** Lookups of many keys travel in one query: busy services refresh hundreds of keys a second. */
  private readonly directKeys: Batcher<string, KeyRecord | null>;
  private legacy: Cached<Set<string>> | null = null;
  private legacyLoad: Promise<Set<string>> | null = null;

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
    const shape = secretShape(secret);
    if (shape === null) throw new ApiError("unauthorized", INVALID_KEY);
    const hash = hashSecret(secret);
    const cacheKey = `d:${hash}`;
    if (
      !this.found.has(cacheKey) &&
      !this.missing.has(cacheKey) &&
      !(await this.plausible(secret, shape, hash))
    ) {
      throw new ApiError("unauthorized", INVALID_KEY);
    }
    const record = await this.lookup(cacheKey, () => this.directKeys.submit(hash));
    if (!record) throw new ApiError("unauthorized", INVALID_KEY);
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
    const record = await this.lookup(`g:${subscriber}`, () =>
      this.options.keys.gatewaySubscriber(subscriber),
    );
    if (!record) throw new ApiError("unauthorized", "the gateway did not identify the subscriber");
    return this.accountOf(record);
  }

  private accountOf(record: KeyRecord): Account {
    if (record.revokedAt !== null) throw new ApiError("forbidden", "this API key has been revoked");
    return accountOf(record, this.options.plans);
  }

  /**
   * Whether a key not held in process could exist, without asking for it: its check is right,
   * or it is one of the keys issued without a check.
   */
  private async plausible(secret: string, shape: SecretShape, hash: string): Promise<boolean> {
    try {
      if (shape === "checked") return hasValidCheck(secret, await this.options.keys.checkKey());
      return (await this.legacyPrefixes()).has(hash.slice(0, LEGACY_PREFIX_LENGTH));
    } catch {
      throw this.databaseUnavailable();
    }
  }

  /** The hash prefixes of the keys issued without a check, read again in the background every minute. */
  private legacyPrefixes(): Promise<Set<string>> {
    const now = this.options.clock.now();
    if (this.legacy && now - this.legacy.fetchedAt < LEGACY_REFRESH_MS)
      return Promise.resolve(this.legacy.value);
    if (!this.legacyLoad) {
      this.legacyLoad = this.options.keys
        .legacyHashPrefixes()
        .then((prefixes) => {
          this.legacy = { value: new Set(prefixes), fetchedAt: now };
          return this.legacy.value;
        })
        .finally(() => {
          this.legacyLoad = null;
        });
    }
    // Until the first read nothing is known; afterwards the last read serves while the next runs.
    if (this.legacy) {
      this.legacyLoad.catch(() => {});
      return Promise.resolve(this.legacy.value);
    }
    return this.legacyLoad;
  }

  private databaseUnavailable(): ApiError {
    this.options.onDatabaseError?.();
    return new ApiError("service_unavailable", "the key database is unreachable; try again shortly", {
      retryAfter: 5,
    });
  }

  private held(cacheKey: string): Cached<KeyRecord | null> | undefined {
    return this.found.get(cacheKey) ?? this.missing.get(cacheKey);
  }

  private async lookup(cacheKey: string, load: () => Promise<KeyRecord | null>): Promise<KeyRecord | null> {
    const age = (entry: Cached<KeyRecord | null> | undefined) =>
      entry ? this.options.clock.now() - entry.fetchedAt : Infinity;
    const ttl = this.options.cacheTtlMs;
    const entry = this.held(cacheKey);
    if (age(entry) < ttl) {
      // A failed background refresh is retried by a later request; the entry stays valid until its bound.
      if (age(entry) >= ttl / 2) this.refresh(cacheKey, load).catch(() => {});
      return entry?.value ?? null;
    }
    try {
      await this.refresh(cacheKey, load);
    } catch {
      throw this.databaseUnavailable();
    }
    return this.held(cacheKey)?.value ?? null;
  }

  /** One database lookup per key at a time, however many requests are waiting for it. */
  private refresh(cacheKey: string, load: () => Promise<KeyRecord | null>): Promise<void> {
    let flight = this.inflight.get(cacheKey);
    if (!flight) {
      // Stamped with when the lookup started: the answer is no newer than that, so the bound
      // on trusting it (and on a revocation's delay) holds from there.
      const fetchedAt = this.options.clock.now();
      flight = load()
        .then((record) => {
          this.options.onLookup?.(record ? "found" : "missing");
          this.found.delete(cacheKey);
          this.missing.delete(cacheKey);
          if (record)
            remember(
              this.found,
              cacheKey,
              { value: record, fetchedAt },
              this.options.maxCachedKeys ?? 100_000,
            );
          else
            remember(
              this.missing,
              cacheKey,
              { value: null, fetchedAt },
              this.options.maxMissingKeys ?? 10_000,
            );
        })
        .finally(() => this.inflight.delete(cacheKey));
      this.inflight.set(cacheKey, flight);
    }
    return flight;
  }
}

/** Adds an entry to a first-in-first-out cache held to `max` entries. */
function remember<T>(cache: Map<string, T>, key: string, value: T, max: number): void {
  cache.set(key, value);
  if (cache.size > max) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
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
