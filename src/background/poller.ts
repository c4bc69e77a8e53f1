/**
 * Runs `tick` again and again in the background: at once while it reports more work, else
 * after `intervalMs` (or sooner when woken). A failing tick is reported and retried after the
 * interval. `stop` waits for the tick under way.
 */
export type Poller = {
  start(): void;
  /** Runs the next tick now instead of at the end of the current wait. */
  wake(): void;
  stop(): Promise<void>;
};

export function createPoller(options: {
  intervalMs: number;
  /** Does one round of work; resolves true when there is more to do right away. */
  tick: () => Promise<boolean>;
  onError: (error: unknown) => void;
}): Poller {
  let running = false;
  let loop: Promise<void> | null = null;
  let wakeUp: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });
  const run = async () => {
    while (running) {
      let more = false;
      try {
        more = await options.tick();
      } catch (error) {
        options.onError(error);
      }
      if (running && !more) await pause(options.intervalMs);
    }
  };
  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    wake() {
      wakeUp?.();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
    },
  };
}
