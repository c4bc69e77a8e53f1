-- Custom SQL migration file, put your code below! --
-- Written by hand (drizzle-kit generate --custom): a data migration no schema diff produces.
-- Folds what a crashed earlier version left in usage_journal into usage_months, so that the
-- next migration can drop the table without losing a recorded request or billed unit.
WITH gone AS (
  DELETE FROM usage_journal RETURNING key_ids, months, requests, units
), sums AS (
  SELECT e.key_id, e.month, sum(e.requests)::int AS requests, sum(e.units)::int AS units
  FROM gone j, unnest(j.key_ids, j.months, j.requests, j.units) AS e(key_id, month, requests, units)
  GROUP BY e.key_id, e.month
)
INSERT INTO usage_months (key_id, month, requests, used)
SELECT key_id, month, requests, units FROM sums
ON CONFLICT (key_id, month) DO UPDATE SET
  requests = usage_months.requests + EXCLUDED.requests,
  used = usage_months.used + EXCLUDED.used;
