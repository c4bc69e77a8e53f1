/**
 * Runs `step` now, then again after the delay (ms) it returns, until it returns null or the
 * returned function is called. While the page is hidden nothing runs: a step that falls due
 * then waits until the page is shown again, and runs at once.
 */
export function pollWhileVisible(step: () => Promise<number | null>): () => void {
  let stopped = false;
  let due = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    timer = undefined;
    if (stopped) return;
    if (document.hidden) {
      due = true;
      return;
    }
    const delay = await step();
    if (!stopped && delay !== null) timer = setTimeout(run, delay);
  };
  const onVisibility = () => {
    if (document.hidden || !due) return;
    due = false;
    void run();
  };
  document.addEventListener("visibilitychange", onVisibility);
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", onVisibility);
  };
}

/**
 * How often to ask for a batch's progress: at most a third of the key's per-minute limit
 * (`X-RateLimit-Limit`), so the rest stays free for the user's own calls, and at most once a second.
 */
export function pollDelayMs(ratePerMinute: number): number {
  return Math.max(1000, Math.ceil((3 * 60_000) / Math.max(1, ratePerMinute)));
}
