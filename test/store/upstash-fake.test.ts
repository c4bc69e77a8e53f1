import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startUpstashFake, type UpstashFake } from "../fakes/upstash.ts";
import { closedPort } from "./unreachable.ts";

const redisUrl = process.env.REDIS_URL;
const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

describe.if(redisUrl !== undefined)("Upstash REST fake on a real Redis (REDIS_URL)", () => {
  let fake: UpstashFake;
  beforeAll(() => {
    fake = startUpstashFake({ redisUrl });
  });
  afterAll(() => fake.stop());

  const prefix = `test:fake:${crypto.randomUUID()}:`;
  let counter = 0;
  const freshKey = () => `${prefix}${++counter}`;

  const call = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${fake.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${fake.token}`, ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };

  test("runs one command posted as a JSON array", async () => {
    const key = freshKey();
    expect(await call("/", ["SET", key, "v", "EX", 60])).toEqual({ status: 200, body: { result: "OK" } });
    expect(await call("/", ["GET", key])).toEqual({ status: 200, body: { result: "v" } });
    expect(await call("/", ["get", freshKey()])).toEqual({ status: 200, body: { result: null } });
    const counter = freshKey();
    await call("/", ["SET", counter, "0", "EX", 60]);
    expect(await call("/", ["INCRBY", counter, 7])).toEqual({ status: 200, body: { result: 7 } });
  });

  test("base64-encodes every string of a result when asked to, and nothing else", async () => {
    const key = freshKey();
    const encoded = { "upstash-encoding": "base64" };
    expect(await call("/", ["SET", key, "žluťoučký 🐎", "EX", 60], encoded)).toEqual({
      status: 200,
      body: { result: base64("OK") },
    });
    expect(await call("/", ["GET", key], encoded)).toEqual({
      status: 200,
      body: { result: base64("žluťoučký 🐎") },
    });
    expect(await call("/", ["GET", freshKey()], encoded)).toEqual({ status: 200, body: { result: null } });
    const counter = freshKey();
    await call("/", ["SET", counter, "0", "EX", 60]);
    expect(await call("/", ["INCR", counter], encoded)).toEqual({ status: 200, body: { result: 1 } });
    expect(await call("/", ["EVAL", "return {1, 'two', {'three'}}", 0], encoded)).toEqual({
      status: 200,
      body: { result: [1, base64("two"), [base64("three")]] },
    });
  });

  test("answers a failed command with 400 and Redis' error message", async () => {
    const key = freshKey();
    await call("/", ["SET", key, "text", "EX", 60]);
    expect(await call("/", ["INCR", key])).toEqual({
      status: 400,
      body: { error: "ERR value is not an integer or out of range" },
    });
    const unknown = await call("/", ["NOSUCHCOMMAND", key]);
    expect(unknown.status).toBe(400);
    expect((unknown.body as { error: string }).error).toStartWith("ERR unknown command");
  });

  test("answers a malformed request with 400", async () => {
    for (const body of ["not json", {}, [], [["GET", "k"]], ["GET", { key: "k" }]]) {
      const { status, body: answer } = await call("/", body);
      expect(status).toBe(400);
      expect((answer as { error: string }).error).toStartWith("ERR");
    }
    expect((await call("/pipeline", ["GET", "k"])).status).toBe(400);
  });

  test("refuses commands that would change the shared connection", async () => {
    for (const command of [["MULTI"], ["SELECT", "1"], ["SUBSCRIBE", "channel"]]) {
      expect((await call("/", command)).status).toBe(400);
    }
  });

  test("a pipeline answers each command in order, errors included", async () => {
    const key = freshKey();
    const text = freshKey();
    await call("/", ["SET", text, "text", "EX", 60]);
    const answer = await call("/pipeline", [
      ["SET", key, "1", "EX", 60],
      ["INCR", text],
      ["INCR", key],
      ["GET", key],
    ]);
    expect(answer).toEqual({
      status: 200,
      body: [
        { result: "OK" },
        { error: "ERR value is not an integer or out of range" },
        { result: 2 },
        { result: "2" },
      ],
    });
  });

  test("multi-exec runs the commands as one transaction", async () => {
    const key = freshKey();
    const text = freshKey();
    await call("/", ["SET", text, "text", "EX", 60]);
    expect(
      await call("/multi-exec", [
        ["INCR", key],
        ["INCR", text],
        ["EXPIRE", key, 60],
        ["GET", key],
      ]),
    ).toEqual({
      status: 200,
      body: [
        { result: 1 },
        { error: "ERR value is not an integer or out of range" },
        { result: 1 },
        { result: "1" },
      ],
    });
  });

  test("multi-exec applies nothing when a command is refused while queueing", async () => {
    const key = freshKey();
    const answer = await call("/multi-exec", [
      ["SET", key, "v", "EX", 60],
      ["NOSUCHCOMMAND", key],
    ]);
    expect(answer.status).toBe(400);
    expect((answer.body as { error: string }).error).toStartWith("EXECABORT");
    expect((await call("/", ["GET", key])).body).toEqual({ result: null });
  });

  test("accepts the path form, a POST body as the last argument and query options after it", async () => {
    const key = freshKey();
    expect(await call(`/set/${encodeURIComponent(key)}/plain`)).toEqual({
      status: 200,
      body: { result: "OK" },
    });
    expect(await call(`/get/${encodeURIComponent(key)}`)).toEqual({ status: 200, body: { result: "plain" } });
    const json = '{"a": [1, 2]}';
    expect(await call(`/set/${encodeURIComponent(key)}?EX=100`, json)).toEqual({
      status: 200,
      body: { result: "OK" },
    });
    expect(await call(`/get/${encodeURIComponent(key)}`)).toEqual({ status: 200, body: { result: json } });
    expect(await call(`/ttl/${encodeURIComponent(key)}`)).toEqual({ status: 200, body: { result: 100 } });
  });

  test("requires the bearer token, in the header or as _token", async () => {
    const path = `${fake.url}/get/${encodeURIComponent(freshKey())}`;
    const refused: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: fake.token },
    ];
    for (const headers of refused) {
      const response = await fetch(path, { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: "Unauthorized" });
    }
    const withQueryToken = await fetch(`${path}?_token=${fake.token}`);
    expect(await withQueryToken.json()).toEqual({ result: null });
  });

  test("shapes RESP3-only replies as Upstash's RESP2 ones", async () => {
    const hash = freshKey();
    const zset = freshKey();
    await call("/pipeline", [
      ["HSET", hash, "field", "value"],
      ["EXPIRE", hash, 60],
      ["ZADD", zset, "1.5", "member"],
      ["EXPIRE", zset, 60],
    ]);
    expect((await call("/", ["HGETALL", hash])).body).toEqual({ result: ["field", "value"] });
    expect((await call("/", ["ZSCORE", zset, "member"])).body).toEqual({ result: "1.5" });
    expect((await call("/", ["EVAL", "redis.setresp(3); return true", 0])).body).toEqual({ result: 1 });
  });
});

describe("Upstash REST fake fault injection", () => {
  const fake = startUpstashFake({ redisUrl: `redis://127.0.0.1:${closedPort()}` });
  afterAll(() => fake.stop());
  // Unauthenticated: answered before any Redis is involved.
  const probe = () => fetch(`${fake.url}/ping`);

  test("down as refused: connections fail until it is up again", async () => {
    await fake.setDown(true);
    await expect(probe()).rejects.toThrow();
    await fake.setDown(false);
    expect((await probe()).status).toBe(401);
  });

  test("down as unavailable: every request gets 503", async () => {
    await fake.setDown(true, "unavailable");
    expect((await probe()).status).toBe(503);
    await fake.setDown(false);
    expect((await probe()).status).toBe(401);
  });

  test("latency delays every answer", async () => {
    fake.setLatency(200);
    const started = performance.now();
    expect((await probe()).status).toBe(401);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    fake.setLatency(0);
  });

  test("answers 500 at once when its own Redis is unreachable", async () => {
    const started = performance.now();
    const response = await fetch(`${fake.url}/ping`, { headers: { authorization: `Bearer ${fake.token}` } });
    expect(response.status).toBe(500);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
