/** A webhook endpoint over real HTTP on loopback: records what it receives, answers what it is told. */
export type Received = { headers: Record<string, string>; body: string; at: number };

export type WebhookReceiver = {
  url: string;
  received: Received[];
  /** The statuses of the next answers, in order; 200 once they are used up. */
  answerWith(statuses: number[]): void;
  /** Until `resume`, take requests and never answer them. */
  hang(): void;
  resume(): void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  stop(): Promise<void>;
};

export function startWebhookReceiver(): WebhookReceiver {
  const received: Received[] = [];
  let statuses: number[] = [];
  let hanging = false;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      received.push({
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
        at: Date.now(),
      });
      if (hanging) return new Promise<Response>(() => {});
      return new Response("ok", { status: statuses.shift() ?? 200 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hooks/batches`,
    received,
    answerWith(next) {
      statuses = [...next];
    },
    hang() {
      hanging = true;
    },
    resume() {
      hanging = false;
    },
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`${received.length} of ${count} webhook requests after ${timeoutMs} ms`);
        await Bun.sleep(20);
      }
      return received;
    },
    async stop() {
      await server.stop(true);
    },
  };
}
