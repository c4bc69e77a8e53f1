import { describe, expect, test } from "bun:test";
import { FairShare } from "../../src/background/fair-share.ts";

const wanting = (...keys: string[]) => keys.map((key) => ({ key, wants: 100 }));

describe("FairShare", () => {
  test("a key alone takes all but a quarter of the slots; the quarter is there for the next key at once", () => {
    const slots = new FairShare(16);
    expect(slots.allowances([{ key: "a", wants: 100 }])).toEqual(new Map([["a", 12]]));
    const held = Array.from({ length: 12 }, () => slots.take("a"));
    expect(slots.free).toBe(4);
    // b arrives while a's 12 hang: a's share is now 6, so a gets nothing more and b gets what is free.
    expect(slots.allowances(wanting("a", "b"))).toEqual(new Map([["b", 4]]));
    for (const release of held.slice(0, 6)) release();
    expect(slots.allowances(wanting("a", "b"))).toEqual(new Map([["b", 6]]));
  });

  test("each key up to its fair part first, then more for those that want it while more than the reserve is free", () => {
    const slots = new FairShare(8);
    slots.take("c");
    // Three keys with work: a fair part is 8 / 4 = 2; then one more above the reserve of 2.
    expect(slots.allowances(wanting("a", "b"))).toEqual(
      new Map([
        ["a", 3],
        ["b", 2],
      ]),
    );
    // Thirty keys with one item each leave most of their parts unused: a key with many takes them.
    const many = new FairShare(128);
    for (let k = 0; k < 30; k++) many.take(`small ${k}`);
    expect(many.allowances([{ key: "big", wants: 1000 }]).get("big")).toBe(128 - 32 - 30);
    // Keys that want little take little; the rest goes, in turn, to those that want more.
    const mixed = new FairShare(128).allowances([
      ...Array.from({ length: 30 }, (_, k) => ({ key: `small ${k}`, wants: 1 })),
      { key: "big", wants: 1000 },
    ]);
    expect(mixed.get("big")).toBe(128 - 32 - 30);
    expect(mixed.get("small 0")).toBe(1);
    expect(new FairShare(4, 1).allowances(wanting("a", "b", "c", "d", "e")).size).toBe(4);
  });

  test("a fixed cap per key holds whatever is free; a slot is given back once", () => {
    const slots = new FairShare(16, 2);
    expect(slots.allowances([{ key: "a", wants: 100 }])).toEqual(new Map([["a", 2]]));
    const release = slots.take("a");
    release();
    release();
    expect(slots.free).toBe(16);
    expect(slots.holding("a")).toBe(0);
  });

  test("work for a target holds at most the target's cap, whoever's work it is, and gives it back", () => {
    const slots = new FairShare(16, 4, 2);
    const released = [slots.take("a", "slow.example"), slots.take("b", "slow.example")];
    slots.take("a", "fast.example");
    expect(slots.targetRoom()).toEqual(
      new Map([
        ["slow.example", 0],
        ["fast.example", 1],
      ]),
    );
    // The keys' own shares are counted as before, and what each holds of each target.
    expect(slots.holding("a")).toBe(2);
    expect(slots.targetHoldings()).toEqual([
      { target: "slow.example", key: "a", held: 1 },
      { target: "slow.example", key: "b", held: 1 },
      { target: "fast.example", key: "a", held: 1 },
    ]);
    for (const release of released) release();
    expect(slots.targetRoom()).toEqual(new Map([["fast.example", 1]]));
    expect(slots.targetHoldings()).toEqual([{ target: "fast.example", key: "a", held: 1 }]);
    expect(slots.free).toBe(15);
  });
});
