import { defineConfig } from "drizzle-kit";

// Migrations are generated from db/schema.ts with `npm run db:generate` and applied by the
// server at start (or `npm run db:migrate`), on embedded PGlite and on Postgres alike.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema.ts",
  out: "./db/migrations",
});
