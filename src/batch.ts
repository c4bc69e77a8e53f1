/**
 * Group commit: callers submit items and each awaits its own result, while the items are
 * flushed together — one flush at a time, each carrying everything that arrived while the
 * previous one ran. Under load a flush carries many items; when idle, an item is flushed
 * at once, so batching adds no fixed delay.
 */
export class GroupCommit<Item, Result> {
  private pending: { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  private readonly drains = new Set<Promise<void>>();

  constructor(
    /** Returns one result per item, in order; a throw rejects every item of the batch. */
    private readonly flush: (items: Item[]) => Promise<Result[]>,
    private readonly maxBatch = 512,
    /** Flushes that may run at once; more overlap the database's commit waits. */
    private readonly parallelism = 1,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.drains.size < this.parallelism) {
        const drain: Promise<void> = this.drain().finally(() => this.drains.delete(drain));
        this.drains.add(drain);
      }
    });
  }

  /** Resolves when everything submitted so far has been flushed. */
  async idle(): Promise<void> {
    while (this.drains.size > 0) await Promise.all(this.drains);
  }

  private async drain(): Promise<void> {
    // Let the requests that arrive in the same tick join the first batch.
    await Promise.resolve();
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      try {
        const results = await this.flush(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => {
          entry.resolve(results[index] as Result);
        });
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
  }
}
