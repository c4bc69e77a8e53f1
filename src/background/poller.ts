/**
 * Runs `tick` again and again in the background: at once while it reports more work, else
 * after `intervalMs` (or soon after being woken). A failing tick is reported and retried after
 * the interval. `stop` waits for the tick under way.
 */
export type Poller = {
  start(): void;
  /** Runs the next tick soon (within `WAKE_DELAY_MS`) instead of at the end of the current wait. */
  wake(): void;
  stop(): Promise<void>;
};

/**
 * How long after a wake the next tick runs. Workers wake their poller whenever an item of work
 * finishes, to claim the slot it freed; when items finish one at a time faster than a tick runs
 * (a member state's retries that fail at once, hundreds a second), a tick per wake — a few
 * statements each, most finding nothing new to claim — was most of what the worker did, and
 * slowed every other key's work beside it by half (measured in `test/batches/idle-batches`'s
 * setting). Within this delay the wakes of many finished items make one tick; a freed slot waits
 * at most this long.
 */
export const WAKE_DELAY_MS = 5;

export function createPoller(options: {
  intervalMs: number;
  /** Does one round of work; resolves true when there is more to do right away. */
  tick: () => Promise<boolean>;
  onError: (error: unknown) => void;
}): Poller {
  let running = false;
  let loop: Promise<void> | null = null;
  /** Cuts the current wait short (null when not waiting, or already cut short). */
  let wakeUp: (() => void) | null = null;
  /** A wake came while a tick ran: the work it announced may have come after the tick looked. */
  let wokenDuringTick = false;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      let timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = () => {
        wakeUp = null;
        clearTimeout(timer);
        timer = setTimeout(done, Math.min(ms, WAKE_DELAY_MS));
      };
    });
  const run = async () => {
    while (running) {
      let more = false;
      let failed = false;
      wokenDuringTick = false;
      try {
        more = await options.tick();
      } catch (error) {
        failed = true;
        options.onError(error);
      }
      if (running && !more) await pause(wokenDuringTick && !failed ? WAKE_DELAY_MS : options.intervalMs);
    }
  };
  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    wake() {
      if (wakeUp) wakeUp();
      else wokenDuringTick = true;
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
    },
  };
}
