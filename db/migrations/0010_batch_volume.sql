CREATE TABLE "batch_volume" (
	"key_id" text PRIMARY KEY NOT NULL,
	"day" date NOT NULL,
	"items" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "batch_volume" ADD CONSTRAINT "batch_volume_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "batches_key_active_idx" ON "batches" USING btree ("key_id") WHERE "batches"."status" IN ('queued', 'running');