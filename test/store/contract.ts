import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { KeyValueStore } from "../../src/store/kv.ts";

export type StoreHarness = {
  /** A new store; the suite closes it after each test. */
  open(): KeyValueStore;
  /** Lets `seconds` pass as the store sees time: a real wait, or a clock moved forward. */
  elapse(seconds: number): Promise<void>;
};

/** Strings that a store which parses, trims, re-encodes or guesses types would get wrong. */
const AWKWARD_VALUES = [
  "012345678",
  "1e3",
  "42",
  "-0",
  "true",
  "null",
  "",
  " padded ",
  "OK",
  "PONG",
  "T0s=",
  '{"valid":true,"name":"ACME \\"Ltd\\"","n":1}',
  "[1,2,3]",
  "žluťoučký kůň úpěl ďábelské ódy 🐎 — Ελληνικά — 中文",
  "line one\nline two\r\n\ttabbed",
  "x".repeat(64 * 1024),
];

/** One call of each KeyValueStore operation, for checks that every one of them fails alike. */
export function everyCall(store: KeyValueStore): (() => Promise<unknown>)[] {
  const { runScript } = store;
  return [
    () => store.get("k"),
    () => store.set("k", "v", 60),
    () => store.del("k"),
    () => store.incr("k", 1, 60),
    () => store.ping(),
    ...(runScript ? [() => runScript("return 1", ["k"], [])] : []),
  ];
}

/**
 * The behaviour every KeyValueStore shares, registered as tests for one store. Keys carry a
 * prefix unique to this run, so suites running at once against one server never collide.
 */
export function describeStoreContract(name: string, harness: StoreHarness): void {
  describe(`${name} store: KeyValueStore contract`, () => {
    const prefix = `test:kv:${crypto.randomUUID()}:`;
    let counter = 0;
    const freshKey = () => `${prefix}${++counter}`;
    let store: KeyValueStore;

    beforeEach(() => {
      store = harness.open();
    });
    afterEach(async () => {
      await store.close();
    });

    test("returns every value exactly as stored, as a string", async () => {
      for (const value of AWKWARD_VALUES) {
        const key = freshKey();
        await store.set(key, value, 60);
        const read = await store.get(key);
        expect(typeof read).toBe("string");
        expect(read).toBe(value);
      }
    });

    test("answers null for a key never set", async () => {
      expect(await store.get(freshKey())).toBeNull();
    });

    test("keeps keys apart, including keys that differ only in case or spacing", async () => {
      const key = freshKey();
      await store.set(key, "lower", 60);
      await store.set(key.toUpperCase(), "upper", 60);
      await store.set(`${key} `, "spaced", 60);
      expect(await store.get(key)).toBe("lower");
      expect(await store.get(key.toUpperCase())).toBe("upper");
      expect(await store.get(`${key} `)).toBe("spaced");
    });

    test("a second set replaces the value", async () => {
      const key = freshKey();
      await store.set(key, "first", 60);
      await store.set(key, "second", 60);
      expect(await store.get(key)).toBe("second");
    });

    test("del removes a key, and deleting a missing key succeeds", async () => {
      const key = freshKey();
      await store.set(key, "doomed", 60);
      await store.del(key);
      expect(await store.get(key)).toBeNull();
      await store.del(freshKey());
    });

    test("a value expires after its ttl and not before", async () => {
      const key = freshKey();
      await store.set(key, "short-lived", 1);
      expect(await store.get(key)).toBe("short-lived");
      await harness.elapse(1.2);
      expect(await store.get(key)).toBeNull();
    });

    test("a second set replaces the expiry too", async () => {
      const key = freshKey();
      await store.set(key, "short", 1);
      await store.set(key, "long", 60);
      await harness.elapse(1.2);
      expect(await store.get(key)).toBe("long");
    });

    test("incr creates a missing counter at the increment and adds to it after", async () => {
      const key = freshKey();
      expect(await store.incr(key, 1, 60)).toBe(1);
      expect(await store.incr(key, 5, 60)).toBe(6);
      expect(await store.incr(key, -10, 60)).toBe(-4);
      expect(await store.incr(key, 0, 60)).toBe(-4);
      expect(await store.get(key)).toBe("-4");
    });

    test("incr adds to an integer stored with set", async () => {
      const key = freshKey();
      await store.set(key, "41", 60);
      expect(await store.incr(key, 1, 60)).toBe(42);
    });

    test("100 concurrent incr calls count exactly 100, each seeing a distinct total", async () => {
      const key = freshKey();
      const totals = await Promise.all(Array.from({ length: 100 }, () => store.incr(key, 1, 60)));
      expect(totals.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
      expect(await store.get(key)).toBe("100");
    });

    test("a counter created by incr expires after the ttl given at creation", async () => {
      const key = freshKey();
      await store.incr(key, 1, 1);
      await harness.elapse(1.2);
      expect(await store.get(key)).toBeNull();
      expect(await store.incr(key, 1, 60)).toBe(1);
    });

    test("incr on an existing counter keeps its expiry, whatever ttl it is given", async () => {
      const created = freshKey();
      await store.incr(created, 1, 1);
      expect(await store.incr(created, 1, 3600)).toBe(2);
      // Through zero and back: "the result equals the increment" must not count as creation.
      expect(await store.incr(created, -2, 3600)).toBe(0);
      expect(await store.incr(created, 1, 3600)).toBe(1);
      const setFirst = freshKey();
      await store.set(setFirst, "5", 1);
      expect(await store.incr(setFirst, 1, 3600)).toBe(6);
      await harness.elapse(1.2);
      expect(await store.get(created)).toBeNull();
      expect(await store.get(setFirst)).toBeNull();
    });

    test("incr refuses a value that is not an integer and leaves it alone", async () => {
      for (const value of ["abc", "012", "1.5", "", " 5", "+5", "-0"]) {
        const key = freshKey();
        await store.set(key, value, 60);
        await expect(store.incr(key, 1, 60)).rejects.toThrow();
        expect(await store.get(key)).toBe(value);
      }
    });

    test("refuses expiries that are not whole seconds above zero", async () => {
      for (const ttl of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(store.set(freshKey(), "v", ttl)).rejects.toBeInstanceOf(RangeError);
        await expect(store.incr(freshKey(), 1, ttl)).rejects.toBeInstanceOf(RangeError);
      }
    });

    test("refuses increments that are not safe integers", async () => {
      for (const by of [1.5, Number.NaN, 2 ** 53]) {
        await expect(store.incr(freshKey(), by, 60)).rejects.toBeInstanceOf(RangeError);
      }
    });

    test("ping resolves while the store is reachable", async () => {
      await store.ping();
    });

    test("after close every call rejects, and closing again is harmless", async () => {
      const key = freshKey();
      await store.set(key, "v", 60);
      await store.close();
      await expect(store.get(key)).rejects.toThrow(/closed/);
      await expect(store.set(key, "w", 60)).rejects.toThrow(/closed/);
      await expect(store.incr(key, 1, 60)).rejects.toThrow(/closed/);
      await expect(store.ping()).rejects.toThrow(/closed/);
      await store.close();
    });
  });
}
