import { describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Batch } from "../../src/batches/schema.ts";
import examples from "../fixtures/iban-examples.json" with { type: "json" };
import { allItems, createBatch, sendTo, waitForBatch } from "../support/batches.ts";
import { counterTotal, crashRig, DEPLOYMENTS } from "../support/crash-rig.ts";
import { prng } from "../support/prng.ts";
import { wellFormedVatNumbers } from "../support/vat-numbers.ts";
import { callsPerNumber } from "../support/vies-calls.ts";

setDefaultTimeout(90_000);

/**
 * Batches across crashes and instances, with the service as real processes: a `kill -9` in the
 * middle of a batch, then a restart, finishes it with every item answered and billed once; two
 * instances on one Postgres share a batch, each item finished by one of them; a webhook that
 * could not be delivered before a crash is delivered after it.
 */
const IBANS = Object.values(examples as Record<string, string>);
const rig = crashRig("batch-crash");

for (const deployment of DEPLOYMENTS) {
  describe(`batches through crashes: ${deployment.name}`, () => {
    const { instance, newKey } = rig.on(deployment);
    const { vies, receiver } = rig;

    test("kill -9 mid-batch, restart: the batch finishes, every item answered once and billed once", async () => {
      vies().reset();
      vies().setLatency(60);
      const first = instance();
      await first.start();
      const { secret: key } = await newKey();
      const numbers = wellFormedVatNumbers(prng(deployment.postgres ? 31 : 32));
      const items = [
        ...Array.from({ length: 240 }, () => ({ vat: numbers() })),
        ...IBANS.slice(0, 60).map((iban) => ({ iban })),
      ];
      const callsBefore = vies().calls.log.length;
      const batch = await createBatch(sendTo(first, key), { items });
      await waitForBatch(sendTo(first, key), batch.id, { done: (b) => b.counts.done >= 80 });
      await first.crash();
      const second = instance();
      await second.start();
      try {
        const send = sendTo(second, key);
        const done = await waitForBatch(send, batch.id, { timeoutMs: 60_000 });
        const results = await allItems(send, batch.id);
        const usage = (await (await send("GET", "/usage")).json()) as {
          used: number;
          requests_this_month: number;
        };
        const calls = callsPerNumber(vies(), callsBefore);
        const repeated = [...calls.values()].filter((count) => count > 1).length;
        const billed = results.filter((item) => item.billable).length;
        const cacheHits = results.filter((item) => item.vat?.cached === true).length;
        console.log(
          JSON.stringify({ deployment: deployment.name, counts: done.counts, repeated, billed, cacheHits }),
        );
        expect(results.every((item) => item.status === "done")).toBe(true);
        expect(done.counts).toMatchObject({ total: 300, done: 300, failed: 0, billed });
        // An item the kill cut off after its VIES answer was cached is a cache hit when it is
        // taken up again — free, as any cache hit. Every other item is billed, once.
        expect(billed).toBe(300 - cacheHits);
        expect(usage).toMatchObject({ used: billed, requests_this_month: 300 });
        // Every number was asked; only those under way at the kill may have been asked twice.
        expect(calls.size).toBe(240);
        expect(repeated).toBeLessThanOrEqual(128);
        expect(cacheHits).toBeLessThanOrEqual(128);
        expect(second.errors).toEqual([]);
      } finally {
        await second.stop();
      }
    });

    test("a webhook not delivered before a crash is delivered after it, with the same id", async () => {
      vies().reset();
      const first = instance();
      await first.start();
      const { secret: key } = await newKey();
      const before = receiver().received.length;
      receiver().answerWith([503, 503, 503, 503, 503, 503, 503, 503]);
      const created = await createBatch(sendTo(first, key), {
        items: [{ vat: "DE12" }],
        webhook_url: receiver().url,
      });
      const batch = await waitForBatch(sendTo(first, key), created.id);
      await receiver().waitFor(before + 1);
      await first.crash();
      receiver().answerWith([]);
      const second = instance();
      await second.start();
      try {
        const delivered = await waitForBatch(sendTo(second, key), batch.id, {
          done: (b: Batch) => b.webhook?.last_status === 200,
          timeoutMs: 20_000,
        });
        const received = receiver().received.slice(before);
        expect(new Set(received.map((message) => message.headers["webhook-id"])).size).toBe(1);
        expect(received.at(-1)?.body).toContain(batch.id);
        // An attempt the crash cut off before its outcome was written is not in the count.
        expect(delivered.webhook?.attempts).toBeGreaterThanOrEqual(1);
        expect(delivered.webhook?.attempts).toBeLessThanOrEqual(received.length);
      } finally {
        await second.stop();
      }
    });

    if (deployment.postgres) {
      test("two instances on one Postgres share a batch: each item finished once, by one of them", async () => {
        vies().reset();
        vies().setLatency(30);
        const [a, b] = [instance(), instance()];
        await Promise.all([a.start(), b.start()]);
        try {
          const { secret: key } = await newKey();
          const numbers = wellFormedVatNumbers(prng(33));
          const callsBefore = vies().calls.log.length;
          const batch = await createBatch(sendTo(a, key), {
            items: Array.from({ length: 400 }, () => ({ vat: numbers() })),
          });
          const done = await waitForBatch(sendTo(b, key), batch.id, { timeoutMs: 60_000 });
          const [byA, byB] = [
            await counterTotal(a, "batch_items_total"),
            await counterTotal(b, "batch_items_total"),
          ];
          const calls = callsPerNumber(vies(), callsBefore);
          console.log(JSON.stringify({ byA, byB, counts: done.counts }));
          expect(done.counts).toMatchObject({ total: 400, done: 400, billed: 400 });
          expect(byA + byB).toBe(400);
          expect(byA).toBeGreaterThan(0);
          expect(byB).toBeGreaterThan(0);
          expect(calls.size).toBe(400);
          expect([...calls.values()].every((count) => count === 1)).toBe(true);
        } finally {
          await Promise.all([a.stop(), b.stop()]);
        }
      });
    }
  });
}
