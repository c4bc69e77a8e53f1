ALTER TABLE "batch_items" ADD COLUMN "match" jsonb;--> statement-breakpoint
ALTER TABLE "validation_records" ADD COLUMN "match" jsonb;