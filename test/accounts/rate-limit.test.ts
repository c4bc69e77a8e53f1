import { expect, test } from "bun:test";
import { memoryCounter, RateLimiter } from "../../src/accounts/rate-limit.ts";
import { manualClock } from "../support/manual-clock.ts";

const MINUTE = 60_000;
const START = Date.parse("2026-03-15T12:00:00Z");

test("the in-process counter counts each key's requests in its UTC minute", async () => {
  const count = memoryCounter();
  expect(await count("a", START)).toBe(1);
  expect(await count("a", START)).toBe(2);
  expect(await count("b", START)).toBe(1);
  expect(await count("a", START + MINUTE)).toBe(1);
  expect(await count("b", START + MINUTE)).toBe(1);
  expect(await count("b", START + MINUTE)).toBe(2);
});

test("a limit of 3 a minute admits 3, refuses the rest until the minute ends, then admits again", async () => {
  const clock = manualClock(START + 50_000);
  const limiter = new RateLimiter(memoryCounter(), clock);
  const decisions = [];
  for (let i = 0; i < 5; i++) decisions.push(await limiter.hit("key", 3));
  expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
  expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
  expect(decisions[3]?.retryAfterSeconds).toBe(10);
  expect(await limiter.hit("other", 3)).toMatchObject({ allowed: true, remaining: 2 });
  clock.advance(10_000);
  expect(await limiter.hit("key", 3)).toMatchObject({ allowed: true, remaining: 2 });
});
