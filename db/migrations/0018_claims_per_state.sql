DROP INDEX "monitors_next_check_idx";--> statement-breakpoint
ALTER TABLE "batch_items" ADD COLUMN "vat_prefix" text;--> statement-breakpoint
CREATE INDEX "monitors_key_next_check_idx" ON "monitors" USING btree ("key_id","next_check_at") WHERE "monitors"."next_check_at" IS NOT NULL;