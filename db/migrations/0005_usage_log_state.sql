CREATE TABLE "usage_log_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"folded_through" bigint NOT NULL
);
--> statement-breakpoint
DROP TABLE "usage_journal" CASCADE;