import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { StoreError } from "../../src/store/errors.ts";
import { createUpstashStore } from "../../src/store/upstash.ts";
import { startUpstashFake, type UpstashFake } from "../fakes/upstash.ts";
import { describeStoreContract, everyCall } from "./contract.ts";
import { SLACK_MS, timed } from "./timing.ts";
import { closedPort } from "./unreachable.ts";

const redisUrl = process.env.REDIS_URL;
const TIMEOUT_MS = 300;

describe.if(redisUrl !== undefined)("Upstash store through the REST fake on a real Redis (REDIS_URL)", () => {
  let fake: UpstashFake;
  beforeAll(() => {
    fake = startUpstashFake({ redisUrl });
  });
  afterAll(() => fake.stop());

  describeStoreContract("upstash", {
    open: () => createUpstashStore({ url: fake.url, token: fake.token, timeoutMs: 2000 }),
    elapse: (seconds) => Bun.sleep(seconds * 1000),
  });

  test("works again as soon as the endpoint is back", async () => {
    const store = createUpstashStore({ url: fake.url, token: fake.token, timeoutMs: TIMEOUT_MS });
    const key = `test:kv:${crypto.randomUUID()}`;
    await store.set(key, "kept", 60);
    await fake.setDown(true);
    await expect(store.get(key)).rejects.toThrow();
    await fake.setDown(false);
    expect(await store.get(key)).toBe("kept");
  });
});

describe("Upstash store when the endpoint fails", () => {
  // No Redis behind it: every answer here comes from the endpoint itself.
  const fake = startUpstashFake({ redisUrl: `redis://127.0.0.1:${closedPort()}` });
  afterAll(() => fake.stop());
  const store = createUpstashStore({ url: fake.url, token: fake.token, timeoutMs: TIMEOUT_MS });
  const calls = everyCall(store);

  test("every call rejects at once when connections are refused", async () => {
    await fake.setDown(true);
    for (const call of calls) {
      const { error, ms } = await timed(call);
      expect(error).toBeInstanceOf(Error);
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
    await fake.setDown(false);
  });

  test("every call rejects at once when the endpoint answers 503", async () => {
    await fake.setDown(true, "unavailable");
    for (const call of calls) {
      const { error, ms } = await timed(call);
      expect(String(error)).toContain("Service Unavailable");
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
    await fake.setDown(false);
  });

  test("a call to a slow endpoint rejects with a timeout StoreError after the timeout", async () => {
    fake.setLatency(TIMEOUT_MS * 4);
    for (const call of calls) {
      const { error, ms } = await timed(call);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).failure).toBe("timeout");
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
    fake.setLatency(0);
  });

  test("a wrong token is refused as unauthorized", async () => {
    const intruder = createUpstashStore({ url: fake.url, token: "not-the-token", timeoutMs: TIMEOUT_MS });
    await expect(intruder.get("k")).rejects.toThrow(/Unauthorized/);
  });
});
