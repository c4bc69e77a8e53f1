import type { Schemas } from "@vat-iban/client";
import { useEffect, useState } from "preact/hooks";
import type { Problem, Session } from "./api.ts";
import { ProblemNotice } from "./problem.tsx";

const day = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { dateStyle: "long", timeZone: "UTC" });

/** Usage: GET /usage (free of charge) each time the tab is shown. */
export function UsagePanel({ session, active }: { session: Session; active: boolean }) {
  const [usage, setUsage] = useState<Schemas["Usage"] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const load = async () => {
    const outcome = await session.ask((api) => api.GET("/usage"));
    setUsage(outcome.ok ? outcome.data : null);
    setProblem(outcome.ok ? null : outcome.problem);
  };
  useEffect(() => {
    if (active) void load();
  }, [active]);

  return (
    <>
      <h2>Usage this month</h2>
      {problem && <ProblemNotice problem={problem} />}
      {usage && <UsageView usage={usage} />}
      <button type="button" class="secondary" onClick={load}>
        Refresh
      </button>
    </>
  );
}

function UsageView({ usage }: { usage: Schemas["Usage"] }) {
  const quota = usage.monthly_quota;
  const percent = quota ? Math.min(100, Math.round((usage.used / quota) * 100)) : null;
  return (
    <>
      {quota === null ? (
        <p class="usage-figure">
          {usage.used.toLocaleString()} validations used; this plan has no monthly quota.
        </p>
      ) : (
        <>
          <label for="usage-bar" class="usage-figure">
            {usage.used.toLocaleString()} of {quota.toLocaleString()} validations used ({percent}%)
          </label>
          <progress id="usage-bar" max={quota} value={Math.min(usage.used, quota)} />
        </>
      )}
      <dl class="fields">
        <div>
          <dt>Resets</dt>
          <dd>on {day(usage.reset_at)} (00:00 UTC)</dd>
        </div>
        <div>
          <dt>Plan</dt>
          <dd>
            {usage.plan_name}: {usage.price_usd_per_month.toLocaleString()} USD a month,{" "}
            {usage.rate_limit_per_minute.toLocaleString()} requests a minute
          </dd>
        </div>
        <div>
          <dt>Requests this month</dt>
          <dd>{usage.requests_this_month.toLocaleString()}, cached answers included (not billed)</dd>
        </div>
        {usage.key_id && (
          <div>
            <dt>Key id</dt>
            <dd>
              <code>{usage.key_id}</code>
            </dd>
          </div>
        )}
      </dl>
    </>
  );
}
