/** A seeded pseudo-random source: the same seed gives the same sequence everywhere. */
export type Random = {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, below). */
  int(below: number): number;
  pick<T>(items: readonly T[]): T;
};

/** mulberry32: small, fast, and good enough to drive tests reproducibly. */
export function prng(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (below: number) => Math.floor(next() * below);
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)] as T };
}

/** A seed from the environment variable `name` when set (to replay a run), else a random one. */
export function seedFrom(name: string): number {
  const given = process.env[name];
  return given ? Number(given) >>> 0 : Math.floor(Math.random() * 2 ** 32);
}
