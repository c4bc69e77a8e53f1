import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Database } from "../kernel/db.ts";

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** Each key's webhook signing secret: created on first use, replaced on rotation. */
export class WebhookSecrets {
  constructor(private readonly database: Database) {}

  /** The key's secret, created if it has none yet. */
  async get(keyId: string): Promise<string> {
    await this.database.rows(sql`
      INSERT INTO webhook_secrets (key_id, secret) VALUES (${keyId}, ${newSecret()})
      ON CONFLICT (key_id) DO NOTHING`);
    const [row] = await this.database.rows<{ secret: string }>(
      sql`SELECT secret FROM webhook_secrets WHERE key_id = ${keyId}`,
    );
    if (!row) throw new Error(`the webhook secret of ${keyId} vanished after insert`);
    return row.secret;
  }

  /** Replaces the key's secret; deliveries attempted from now on are signed with the new one. */
  async rotate(keyId: string): Promise<string> {
    const [row] = await this.database.rows<{ secret: string }>(sql`
      INSERT INTO webhook_secrets (key_id, secret) VALUES (${keyId}, ${newSecret()})
      ON CONFLICT (key_id) DO UPDATE SET secret = EXCLUDED.secret, created_at = now()
      RETURNING secret`);
    if (!row) throw new Error(`the webhook secret of ${keyId} could not be written`);
    return row.secret;
  }
}
