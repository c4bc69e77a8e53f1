/** Runs `work` and reports how it settled and how long it took. */
export async function timed(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await work();
    return { error: undefined, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}

/** Allowance over a deadline for a loaded CI machine; what matters is that nothing waits long. */
export const SLACK_MS = 150;
