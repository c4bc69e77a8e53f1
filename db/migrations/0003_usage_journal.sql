CREATE TABLE "usage_journal" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key_ids" text[] NOT NULL,
	"months" date[] NOT NULL,
	"requests" integer[] NOT NULL,
	"units" integer[] NOT NULL
);
