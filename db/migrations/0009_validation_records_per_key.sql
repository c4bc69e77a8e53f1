-- drizzle-kit cannot name the primary key it replaces; Postgres named it validation_records_pkey.
ALTER TABLE "validation_records" DROP CONSTRAINT "validation_records_pkey";--> statement-breakpoint
ALTER TABLE "validation_records" ADD CONSTRAINT "validation_records_key_id_request_id_pk" PRIMARY KEY("key_id","request_id");