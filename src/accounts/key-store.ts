import { asc, eq, inArray, sql } from "drizzle-orm";
import { apiKeys, plans, serviceSecrets } from "../../db/schema.ts";
import type { PlanId } from "../http/schemas.ts";
import type { Database } from "../kernel/db.ts";
import { gatewayKeyId, generateCheckKey, generateKeyId, generateSecret, hashSecret } from "./keys.ts";
import type { Plan } from "./plans.ts";

export type KeyRecord = {
  id: string;
  kind: "direct" | "gateway";
  name: string | null;
  planId: PlanId;
  /** Per-key overrides of the plan's limits. */
  monthlyQuota: number | null;
  ratePerMinute: number | null;
  createdAt: Date;
  revokedAt: Date | null;
};

const keyColumns = {
  id: apiKeys.id,
  kind: apiKeys.kind,
  name: apiKeys.name,
  planId: apiKeys.planId,
  monthlyQuota: apiKeys.monthlyQuota,
  ratePerMinute: apiKeys.ratePerMinute,
  createdAt: apiKeys.createdAt,
  revokedAt: apiKeys.revokedAt,
};

/** How many hex characters of a legacy key's hash are kept in memory to recognise it. */
export const LEGACY_PREFIX_LENGTH = 16;

/** Keys and plans in the database. The only module that writes to `api_keys` or `plans`. */
export class KeyStore {
  private checkKeyLoad: Promise<Buffer> | null = null;

  constructor(private readonly database: Database) {}

  /**
   * The deployment's key for the checks inside API keys: created by the first instance that
   * asks, the same for all of them afterwards.
   */
  checkKey(): Promise<Buffer> {
    if (!this.checkKeyLoad) {
      this.checkKeyLoad = (async () => {
        await this.database.db
          .insert(serviceSecrets)
          .values({ name: "key_check", value: generateCheckKey().toString("base64") })
          .onConflictDoNothing();
        const [row] = await this.database.db
          .select({ value: serviceSecrets.value })
          .from(serviceSecrets)
          .where(eq(serviceSecrets.name, "key_check"));
        if (!row) throw new Error("the key check secret vanished after insert");
        return Buffer.from(row.value, "base64");
      })();
      // A failed load is tried again by the next caller.
      this.checkKeyLoad.catch(() => {
        this.checkKeyLoad = null;
      });
    }
    return this.checkKeyLoad;
  }

  /** The first LEGACY_PREFIX_LENGTH characters of the hashes of every key issued without a check. */
  async legacyHashPrefixes(): Promise<string[]> {
    const rows = await this.database.db
      .select({ prefix: sql<string>`left(${apiKeys.secretHash}, ${LEGACY_PREFIX_LENGTH})` })
      .from(apiKeys)
      .where(sql`${apiKeys.secretVersion} = 1 AND ${apiKeys.secretHash} IS NOT NULL`);
    return rows.map((row) => row.prefix);
  }

  /** Makes the `plans` table match the catalogue in code. */
  async syncPlans(catalogue: Record<PlanId, Plan>): Promise<void> {
    for (const plan of Object.values(catalogue)) {
      const row = {
        id: plan.id,
        name: plan.name,
        priceUsdPerMonth: plan.priceUsdPerMonth,
        monthlyQuota: plan.monthlyQuota,
        ratePerMinute: plan.ratePerMinute,
      };
      await this.database.db.insert(plans).values(row).onConflictDoUpdate({ target: plans.id, set: row });
    }
  }

  /** The keys with these secret hashes, in one query; hashes without a key are absent. */
  async findBySecretHashes(secretHashes: string[]): Promise<Map<string, KeyRecord>> {
    const rows = await this.database.db
      .select({ ...keyColumns, secretHash: apiKeys.secretHash })
      .from(apiKeys)
      .where(inArray(apiKeys.secretHash, secretHashes));
    return new Map(rows.map(({ secretHash, ...record }) => [secretHash as string, record as KeyRecord]));
  }

  async findById(id: string): Promise<KeyRecord | null> {
    const rows = await this.database.db.select(keyColumns).from(apiKeys).where(eq(apiKeys.id, id));
    return (rows[0] as KeyRecord | undefined) ?? null;
  }

  /** The usage identity of a gateway subscriber, created the first time the subscriber calls. */
  async gatewaySubscriber(subscriber: string): Promise<KeyRecord> {
    const id = gatewayKeyId(subscriber);
    await this.database.db
      .insert(apiKeys)
      .values({ id, kind: "gateway", gatewaySubscriber: subscriber, planId: "rapidapi" })
      .onConflictDoNothing();
    const record = await this.findById(id);
    if (!record) throw new Error(`gateway subscriber ${id} vanished after insert`);
    return record;
  }

  /** Issues a new direct key; the secret is returned here and never stored. */
  async create(input: {
    planId: PlanId;
    name: string | null;
    monthlyQuota: number | null;
    ratePerMinute: number | null;
  }): Promise<{ record: KeyRecord; secret: string }> {
    const secret = generateSecret(await this.checkKey());
    const rows = await this.database.db
      .insert(apiKeys)
      .values({
        id: generateKeyId(),
        kind: "direct",
        secretHash: hashSecret(secret),
        secretVersion: 2,
        name: input.name,
        planId: input.planId,
        monthlyQuota: input.monthlyQuota,
        ratePerMinute: input.ratePerMinute,
      })
      .returning(keyColumns);
    return { record: rows[0] as KeyRecord, secret };
  }

  /** Revokes a direct key; revoking twice keeps the first time. Null when there is no such key. */
  async revoke(id: string, at: Date): Promise<KeyRecord | null> {
    await this.database.db
      .update(apiKeys)
      .set({ revokedAt: sql`COALESCE(${apiKeys.revokedAt}, ${at.toISOString()}::timestamptz)` })
      .where(eq(apiKeys.id, id));
    return this.findById(id);
  }

  async list(): Promise<KeyRecord[]> {
    return (await this.database.db
      .select(keyColumns)
      .from(apiKeys)
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))) as KeyRecord[];
  }
}
