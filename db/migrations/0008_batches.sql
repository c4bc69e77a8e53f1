CREATE TABLE "batch_items" (
	"batch_id" text NOT NULL,
	"idx" integer NOT NULL,
	"reference" text,
	"vat" text,
	"iban" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retry_until" timestamp with time zone,
	"lease_token" text,
	"lease_until" timestamp with time zone,
	"vat_result" jsonb,
	"iban_result" jsonb,
	"billable" boolean DEFAULT false NOT NULL,
	"error" jsonb,
	"completed_at" timestamp with time zone,
	CONSTRAINT "batch_items_batch_id_idx_pk" PRIMARY KEY("batch_id","idx")
);
--> statement-breakpoint
CREATE TABLE "batches" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"total" integer NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"valid" integer DEFAULT 0 NOT NULL,
	"invalid" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"billed" integer DEFAULT 0 NOT NULL,
	"webhook_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "validation_records" (
	"request_id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"vat_number" text NOT NULL,
	"valid" boolean NOT NULL,
	"name" text,
	"address" text,
	"checked_at" timestamp with time zone NOT NULL,
	"consultation_number" text,
	"source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"batch_id" text NOT NULL,
	"key_id" text NOT NULL,
	"url" text NOT NULL,
	"payload" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_status" integer,
	"last_attempt_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"give_up_at" timestamp with time zone NOT NULL,
	"lease_token" text,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_secrets" (
	"key_id" text PRIMARY KEY NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "batch_items" ADD CONSTRAINT "batch_items_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "batches" ADD CONSTRAINT "batches_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_secrets" ADD CONSTRAINT "webhook_secrets_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "batch_items_pending_idx" ON "batch_items" USING btree ("batch_id","idx") WHERE "batch_items"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "batches_key_id_idx" ON "batches" USING btree ("key_id","created_at");--> statement-breakpoint
CREATE INDEX "batches_active_idx" ON "batches" USING btree ("created_at") WHERE "batches"."status" IN ('queued', 'running');--> statement-breakpoint
CREATE INDEX "batches_completed_at_idx" ON "batches" USING btree ("completed_at");--> statement-breakpoint
CREATE INDEX "validation_records_created_at_idx" ON "validation_records" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_batch_idx" ON "webhook_deliveries" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';