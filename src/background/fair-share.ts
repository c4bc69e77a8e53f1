/**
 * The slots of one background worker (batch items, webhook deliveries), shared among the keys
 * whose work it does, so that one key's slow or failing work cannot hold what another key needs.
 * Work may also name a target (a webhook's host), of which a fixed number may be held whoever's
 * work it is, so that one slow target cannot take the slots of the others.
 *
 * Each key with work may take its fair part (the slots split among the keys with work and one
 * more), and beyond it only while more than a reserve (a quarter of the slots) stays free; freed
 * slots go to the keys holding least first. So when a key's work arrives there are slots free
 * for it at once, even while another key's work hangs until its timeout, and slots a few keys
 * leave unused are not kept idle. Work is claimed as slots free, never in rounds that wait for
 * their slowest attempt.
 */
export class FairShare {
  private readonly held = new Map<string, number>();
  private readonly targets = new Map<string, number>();
  /** Per target and key (`[target, key]` as JSON), the slots that key's work for it holds. */
  private readonly targetKeys = new Map<string, number>();
  private inUse = 0;
  private readonly reserve: number;

  constructor(
    /** Slots of the worker. */
    readonly total: number,
    /** The most one key may hold, whatever is free. */
    private readonly perKeyMax = Number.POSITIVE_INFINITY,
    /** The most work for one target may hold, whoever's work it is. */
    readonly perTargetMax = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isSafeInteger(total) || total < 1)
      throw new RangeError(`total must be a positive integer, got ${total}`);
    this.reserve = total === 1 ? 0 : Math.ceil(total / 4);
  }

  /** Slots nobody holds. */
  get free(): number {
    return this.total - this.inUse;
  }

  /** Slots `key` holds. */
  holding(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** The targets held, each with how many more slots work for it may take now (0 at its cap). */
  targetRoom(): Map<string, number> {
    return new Map(Array.from(this.targets, ([target, count]) => [target, this.perTargetMax - count]));
  }

  /** Per target held, the slots each key's work for it holds: its room goes first to those holding least. */
  targetHoldings(): { target: string; key: string; held: number }[] {
    return Array.from(this.targetKeys, ([pair, held]) => {
      const [target, key] = JSON.parse(pair) as [string, string];
      return { target, key, held };
    });
  }

  /** A key's fair part while `keys` keys have work: what each would hold if one more came. */
  share(keys: number): number {
    return Math.max(1, Math.min(this.perKeyMax, Math.floor(this.total / (keys + 1))));
  }

  /**
   * How many slots each of `waiting` (keys with work to claim, in the order they take turns, and
   * how much each wants) may take now. First each up to its fair part, those holding least
   * first; then, while more than the reserve is free, one more at a time in turn to those that
   * want more (what a few keys leave unused is not kept idle), none beyond three quarters of the
   * slots or the fixed cap.
   */
  allowances(waiting: { key: string; wants: number }[]): Map<string, number> {
    const fair = this.share(new Set([...waiting.map(({ key }) => key), ...this.held.keys()]).size);
    const ceiling = Math.min(this.perKeyMax, this.total - this.reserve);
    const order = [...waiting].sort((a, b) => this.holding(a.key) - this.holding(b.key));
    const allowed = new Map<string, number>();
    let free = this.free;
    const room = ({ key, wants }: { key: string; wants: number }, limit: number) => {
      const given = allowed.get(key) ?? 0;
      return Math.min(wants - given, limit - this.holding(key) - given);
    };
    const give = (key: string, count: number) => {
      allowed.set(key, (allowed.get(key) ?? 0) + count);
      free -= count;
    };
    for (const wanting of order) {
      const count = Math.min(free, room(wanting, fair));
      if (count > 0) give(wanting.key, count);
    }
    for (let more = true; more && free > this.reserve; ) {
      more = false;
      for (const wanting of order) {
        if (free <= this.reserve) break;
        if (room(wanting, ceiling) <= 0) continue;
        give(wanting.key, 1);
        more = true;
      }
    }
    return allowed;
  }

  /** Takes a slot for `key`'s work (for `target`, when named); the function returned gives it back (once). */
  take(key: string, target?: string): () => void {
    count(this.held, key, 1);
    const pair = target === undefined ? null : JSON.stringify([target, key]);
    if (target !== undefined) count(this.targets, target, 1);
    if (pair !== null) count(this.targetKeys, pair, 1);
    this.inUse += 1;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.inUse -= 1;
      count(this.held, key, -1);
      if (target !== undefined) count(this.targets, target, -1);
      if (pair !== null) count(this.targetKeys, pair, -1);
    };
  }
}

/** Adds `change` to `name`'s count, dropping it at zero. */
function count(counts: Map<string, number>, name: string, change: number): void {
  const next = (counts.get(name) ?? 0) + change;
  if (next > 0) counts.set(name, next);
  else counts.delete(name);
}
