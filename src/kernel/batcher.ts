/**
 * Batches concurrent calls (group commit): callers submit items and each awaits its own
 * result, while the items are flushed together — each flush carrying everything that arrived
 * since the last one started. A flush starts on the event loop's next turn, after the I/O that
 * is already waiting (requests read meanwhile, database replies) has been handled, so
 * everything that arrived together travels together: also with a store that blocks the event
 * loop while it works (PGlite), where nothing can arrive during a flush. Under load a flush
 * carries many items; when idle, an item is flushed at once, so batching adds no fixed delay.
 *
 * By default one flush runs at a time: a flush that takes row locks or commits must not race
 * its successor. `inFlight` lets several run at once, for a store that applies each flush
 * atomically in the order it was sent (a Redis script over one connection): a new flush then
 * starts on the next turn instead of after the one in flight, which saves a round trip of waiting.
 */
export class Batcher<Item, Result> {
  private pending: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  private readonly maxBatch: number;
  private readonly inFlight: number;
  private running = 0;
  private scheduled = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    /**
     * Returns one result per item, in order: an `ItemFailure` rejects its item alone, a throw
     * rejects every item of the batch.
     */
    private readonly flush: (items: Item[]) => Promise<(Result | ItemFailure)[]>,
    options: { maxBatch?: number; inFlight?: number } = {},
  ) {
    this.maxBatch = options.maxBatch ?? 512;
    this.inFlight = options.inFlight ?? 1;
  }

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves when everything submitted so far has been flushed. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.pending.length === 0 && this.running === 0 && !this.scheduled;
  }

  /** Starts a flush on the next turn, unless one is due already or all slots are taken. */
  private schedule(): void {
    if (this.scheduled || this.running >= this.inFlight || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flushPending();
    });
  }

  private async flushPending(): Promise<void> {
    const batch = this.pending.splice(0, this.maxBatch);
    this.running += 1;
    // Items left over (more than a batch) or arriving from here on go in the next flush, on
    // the next turn when a slot is free, else when this one ends.
    this.schedule();
    try {
      const results = await this.flush(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => {
        const result = results[index];
        if (result instanceof ItemFailure) entry.reject(result.error);
        else entry.resolve(result as Result);
      });
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
    this.running -= 1;
    this.schedule();
    if (this.isIdle()) for (const wake of this.idleWaiters.splice(0)) wake();
  }
}

/** The outcome of one item of a flush that failed while others of its batch succeeded. */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}
