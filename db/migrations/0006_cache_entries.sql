CREATE TABLE "cache_entries" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "cache_entries_expires_at_idx" ON "cache_entries" USING btree ("expires_at");