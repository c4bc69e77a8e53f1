/**
 * Batches concurrent calls (group commit): callers submit items and each awaits its own
 * result, while the items are flushed together — one flush at a time, each carrying
 * everything that arrived while the previous one ran. A flush starts on the event loop's
 * next turn, after the I/O that is already waiting (requests read meanwhile, database
 * replies) has been handled, so everything that arrived together travels together: also
 * with a store that blocks the event loop while it works (PGlite), where nothing can
 * arrive during a flush. Under load a flush carries many items; when idle, an item is
 * flushed at once, so batching adds no fixed delay.
 */
export class Batcher<Item, Result> {
  private pending: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  private draining = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    /**
     * Returns one result per item, in order: an `ItemFailure` rejects its item alone, a throw
     * rejects every item of the batch.
     */
    private readonly flush: (items: Item[]) => Promise<(Result | ItemFailure)[]>,
    private readonly maxBatch = 512,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        void this.drain();
      }
    });
  }

  /** Resolves when everything submitted so far has been flushed. */
  idle(): Promise<void> {
    if (!this.draining) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      await nextTurn();
      const batch = this.pending.splice(0, this.maxBatch);
      if (batch.length === 0) continue;
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
    }
    // In the same synchronous step as the loop's last look at `pending`: an item submitted
    // from here on finds no drain running and starts one, so none is left behind.
    this.draining = false;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }
}

/** The outcome of one item of a flush that failed while others of its batch succeeded. */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}

/** Resolves on the event loop's next turn, after the I/O callbacks already due. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
