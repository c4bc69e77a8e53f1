import { Elysia, t } from "elysia";

/**
 * The reference point of the HTTP benchmark: a bare Elysia POST with a body schema and no
 * work behind it, on the same runtime, in the same run.
 */
new Elysia()
  .post("/validate", ({ body }) => ({ ok: true, length: body.iban.length }), {
    body: t.Object({ iban: t.String({ maxLength: 60 }) }),
  })
  .listen({ port: Number(process.env.PORT ?? 3000), hostname: "127.0.0.1" });
