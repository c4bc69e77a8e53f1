import { describe, expect, test } from "bun:test";
import { createSingleflight } from "../../src/vat/singleflight.ts";

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("singleflight", () => {
  test("concurrent calls with one key run the work once and all get its value", async () => {
    const flights = createSingleflight<number>();
    const gate = deferred<number>();
    let runs = 0;
    const work = () => {
      runs += 1;
      return gate.promise;
    };
    const calls = Array.from({ length: 50 }, () => flights.run("DE811569869", work));
    gate.resolve(42);
    expect(await Promise.all(calls.map((call) => call.promise))).toEqual(Array(50).fill(42));
    expect(runs).toBe(1);
    expect(calls.map((call) => call.shared)).toEqual([false, ...Array(49).fill(true)]);
  });

  test("different keys do not share", async () => {
    const flights = createSingleflight<string>();
    const a = flights.run("a", async () => "A");
    const b = flights.run("b", async () => "B");
    expect([a.shared, b.shared, await a.promise, await b.promise]).toEqual([false, false, "A", "B"]);
  });

  test("a failure reaches every caller of the flight and is forgotten when it ends", async () => {
    const flights = createSingleflight<string>();
    const gate = deferred<string>();
    const first = flights.run("k", () => gate.promise);
    const joined = flights.run("k", () => Promise.resolve("never run"));
    gate.reject(new Error("upstream exploded"));
    await expect(first.promise).rejects.toThrow("upstream exploded");
    await expect(joined.promise).rejects.toThrow("upstream exploded");
    const after = flights.run("k", async () => "recovered");
    expect([after.shared, await after.promise]).toEqual([false, "recovered"]);
  });

  test("work that throws synchronously is a rejection, not a throw from run", async () => {
    const flights = createSingleflight<string>();
    const flight = flights.run("k", () => {
      throw new Error("sync");
    });
    await expect(flight.promise).rejects.toThrow("sync");
    expect(flights.run("k", async () => "next").shared).toBe(false);
  });

  test("a value is not remembered either: the next call after settling runs the work again", async () => {
    const flights = createSingleflight<number>();
    let runs = 0;
    const work = async () => ++runs;
    expect(await flights.run("k", work).promise).toBe(1);
    expect(await flights.run("k", work).promise).toBe(2);
  });
});
