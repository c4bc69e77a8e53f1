import { describe, expect, test } from "bun:test";
import { StoreError } from "../../src/store/errors.ts";
import { createRedisStore } from "../../src/store/redis.ts";
import { describeStoreContract, everyCall } from "./contract.ts";
import { startTcpRelay } from "./tcp-relay.ts";
import { SLACK_MS, timed } from "./timing.ts";
import { closedPort, startSilentServer } from "./unreachable.ts";

const redisUrl = process.env.REDIS_URL;
const TIMEOUT_MS = 300;

describe.if(redisUrl !== undefined)("Redis store against a real server (REDIS_URL)", () => {
  const url = redisUrl ?? "";
  describeStoreContract("redis", {
    open: () => createRedisStore({ url, timeoutMs: 2000 }),
    elapse: (seconds) => Bun.sleep(seconds * 1000),
  });

  test("reconnects by itself once the server is reachable again", async () => {
    const target = new URL(url);
    const relay = startTcpRelay({ hostname: target.hostname, port: Number(target.port || 6379) });
    const store = createRedisStore({ url: `redis://127.0.0.1:${relay.port}`, timeoutMs: TIMEOUT_MS });
    try {
      await store.ping();
      relay.stop();
      const down = await timed(() => store.ping());
      expect(down.error).toBeDefined();
      expect(down.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      relay.start();
      await store.ping();
      const key = `test:kv:${crypto.randomUUID()}`;
      await store.set(key, "back", 60);
      expect(await store.get(key)).toBe("back");
    } finally {
      await store.close();
      relay.stop();
    }
  });

  test("replaces a connection that stopped answering instead of waiting on it forever", async () => {
    const target = new URL(url);
    const relay = startTcpRelay({ hostname: target.hostname, port: Number(target.port || 6379) });
    const store = createRedisStore({ url: `redis://127.0.0.1:${relay.port}`, timeoutMs: TIMEOUT_MS });
    try {
      await store.ping();
      relay.freezeOpenConnections();
      const stuck = await timed(() => store.ping());
      expect((stuck.error as StoreError).failure).toBe("timeout");
      await store.ping();
    } finally {
      await store.close();
      relay.stop();
    }
  });
});

describe("Redis store when the server is unreachable", () => {
  test("every call rejects at once when connections are refused", async () => {
    const store = createRedisStore({ url: `redis://127.0.0.1:${closedPort()}`, timeoutMs: TIMEOUT_MS });
    for (const call of everyCall(store)) {
      const { error, ms } = await timed(call);
      expect(error).toBeInstanceOf(Error);
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
    await store.close();
  });

  test("calls to a server that never answers reject after the timeout", async () => {
    const silent = startSilentServer();
    const store = createRedisStore({ url: `redis://127.0.0.1:${silent.port}`, timeoutMs: TIMEOUT_MS });
    try {
      const results = await Promise.all([timed(() => store.get("k")), timed(() => store.incr("k", 1, 60))]);
      for (const { error, ms } of results) {
        expect(error).toBeInstanceOf(Error);
        expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
        expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      }
    } finally {
      await store.close();
      silent.stop(true);
    }
  });

  test("a call that outlives its deadline rejects with a timeout StoreError", async () => {
    const silent = startSilentServer();
    const store = createRedisStore({ url: `redis://127.0.0.1:${silent.port}`, timeoutMs: TIMEOUT_MS });
    try {
      const { error } = await timed(() => store.get("k"));
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).failure).toBe("timeout");
    } finally {
      await store.close();
      silent.stop(true);
    }
  });
});
