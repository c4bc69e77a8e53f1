CREATE TABLE "monitor_events" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"monitor_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "monitors" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"key_id" text NOT NULL,
	"vat_number" text NOT NULL,
	"reference" text,
	"match" jsonb,
	"interval_days" integer NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"webhook_url" text,
	"created_at" timestamp with time zone NOT NULL,
	"last_checked_at" timestamp with time zone,
	"last_result" jsonb,
	"due_at" timestamp with time zone NOT NULL,
	"next_check_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"retry_since" timestamp with time zone,
	"lease_token" text,
	"lease_until" timestamp with time zone,
	"checks" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "batch_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "monitor_id" text;--> statement-breakpoint
ALTER TABLE "monitor_events" ADD CONSTRAINT "monitor_events_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "monitor_events_monitor_seq_idx" ON "monitor_events" USING btree ("monitor_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "monitors_key_vat_idx" ON "monitors" USING btree ("key_id","vat_number");--> statement-breakpoint
CREATE INDEX "monitors_key_seq_idx" ON "monitors" USING btree ("key_id","seq");--> statement-breakpoint
CREATE INDEX "monitors_key_status_seq_idx" ON "monitors" USING btree ("key_id","status","seq");--> statement-breakpoint
CREATE INDEX "monitors_next_check_idx" ON "monitors" USING btree ("next_check_at") WHERE "monitors"."next_check_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_monitor_idx" ON "webhook_deliveries" USING btree ("monitor_id","created_at");--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subject_check" CHECK (("webhook_deliveries"."batch_id" IS NULL) <> ("webhook_deliveries"."monitor_id" IS NULL));