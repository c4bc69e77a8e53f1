CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"secret_hash" text,
	"gateway_subscriber" text,
	"name" text,
	"plan_id" text NOT NULL,
	"monthly_quota" integer,
	"rate_per_minute" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_identity_check" CHECK (("api_keys"."kind" = 'direct' AND "api_keys"."secret_hash" IS NOT NULL AND "api_keys"."gateway_subscriber" IS NULL)
       OR ("api_keys"."kind" = 'gateway' AND "api_keys"."secret_hash" IS NULL AND "api_keys"."gateway_subscriber" IS NOT NULL)),
	CONSTRAINT "api_keys_quota_check" CHECK ("api_keys"."monthly_quota" IS NULL OR "api_keys"."monthly_quota" >= 0),
	CONSTRAINT "api_keys_rate_check" CHECK ("api_keys"."rate_per_minute" IS NULL OR "api_keys"."rate_per_minute" > 0)
);
--> statement-breakpoint
CREATE TABLE "plans" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"price_usd_per_month" numeric(10, 2) NOT NULL,
	"monthly_quota" integer,
	"rate_per_minute" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_windows" (
	"key_id" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rate_windows_key_id_window_start_pk" PRIMARY KEY("key_id","window_start")
);
--> statement-breakpoint
CREATE TABLE "reservations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"month" date NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_months" (
	"key_id" text NOT NULL,
	"month" date NOT NULL,
	"used" integer DEFAULT 0 NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_months_key_id_month_pk" PRIMARY KEY("key_id","month"),
	CONSTRAINT "usage_months_used_check" CHECK ("usage_months"."used" >= 0)
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reservations" ADD CONSTRAINT "reservations_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_months" ADD CONSTRAINT "usage_months_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_secret_hash_idx" ON "api_keys" USING btree ("secret_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_gateway_subscriber_idx" ON "api_keys" USING btree ("gateway_subscriber");--> statement-breakpoint
CREATE INDEX "reservations_key_month_idx" ON "reservations" USING btree ("key_id","month","expires_at");