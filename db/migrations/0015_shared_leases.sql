CREATE TABLE "shared_leases" (
	"key" text NOT NULL,
	"slot" integer NOT NULL,
	"lease_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "shared_leases_key_slot_pk" PRIMARY KEY("key","slot")
);
