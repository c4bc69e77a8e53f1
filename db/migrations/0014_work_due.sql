CREATE TABLE "work_due" (
	"queue" text NOT NULL,
	"unit" text NOT NULL,
	"key_id" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"marks" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "work_due_queue_unit_pk" PRIMARY KEY("queue","unit")
);
--> statement-breakpoint
DROP INDEX "batch_items_pending_idx";--> statement-breakpoint
CREATE INDEX "work_due_due_idx" ON "work_due" USING btree ("queue","due_at");--> statement-breakpoint
CREATE INDEX "batch_items_due_idx" ON "batch_items" USING btree ("batch_id","next_attempt_at","idx") WHERE "batch_items"."status" = 'pending';