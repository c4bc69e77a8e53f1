/**
 * Fails (exit 1) unless the Postgres at DATABASE_URL and the Redis at REDIS_URL answer.
 * CI runs it before the real-server test run, so a missing server is an error, never a skip.
 */
import { RedisClient } from "bun";
import postgres from "postgres";

const databaseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
const problems: string[] = [];
if (!databaseUrl) problems.push("DATABASE_URL is not set");
if (!redisUrl) problems.push("REDIS_URL is not set");

if (databaseUrl) {
  const sql = postgres(databaseUrl, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
  } catch (error) {
    problems.push(`Postgres at ${databaseUrl} does not answer: ${(error as Error).message}`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
if (redisUrl) {
  const redis = new RedisClient(redisUrl, { connectionTimeout: 5000, autoReconnect: false });
  try {
    await redis.send("PING", []);
  } catch (error) {
    problems.push(`Redis at ${redisUrl} does not answer: ${(error as Error).message}`);
  } finally {
    redis.close();
  }
}
if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  process.exit(1);
}
process.stdout.write("Postgres and Redis answer\n");
