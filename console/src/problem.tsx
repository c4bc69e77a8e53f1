import type { Problem } from "./api.ts";

const time = (date: Date) =>
  date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });

function whenToRetry(problem: Problem): string | null {
  if (problem.status !== 429 && problem.status !== 503) return null;
  if (!problem.retryAt) return problem.status === 429 ? "Try again later." : null;
  const seconds = Math.max(1, Math.round((problem.retryAt.getTime() - Date.now()) / 1000));
  if (seconds < 120) return `Try again in ${seconds} s (at ${time(problem.retryAt)}).`;
  return `Try again after ${problem.retryAt.toLocaleString()}.`;
}

/** A failure as the API words it, with when to try again for a 429 or a 503. */
export function ProblemNotice({ problem }: { problem: Problem }) {
  const retry = whenToRetry(problem);
  return (
    <div class="notice notice-error" role="alert">
      <p>
        <strong>{problem.message}</strong>
        {retry && <> {retry}</>}
      </p>
      {problem.status !== null && (
        <p class="muted">
          HTTP {problem.status}, <code>{problem.code}</code>
        </p>
      )}
    </div>
  );
}
