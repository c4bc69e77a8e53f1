import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { connectPostgres } from "../../src/kernel/db.ts";
import type { Monitor } from "../../src/monitors/schema.ts";
import { adminCommand } from "../support/admin-socket.ts";
import { type Send, sendTo } from "../support/batches.ts";
import { counterTotal, crashRig, DEPLOYMENTS } from "../support/crash-rig.ts";
import { allEvents, allMonitors } from "../support/monitors.ts";
import { prng } from "../support/prng.ts";
import { wellFormedVatNumbers } from "../support/vat-numbers.ts";
import { callsPerNumber } from "../support/vies-calls.ts";

setDefaultTimeout(180_000);

/**
 * Monitors across crashes and instances, with the service as real processes: a `kill -9` in the
 * middle of a round, then a restart, finishes the round with every monitor answered, billed and
 * compared once — no event lost, none twice; two instances on one Postgres share the rounds, each
 * check made by one of them. Answers are cached for a second only, so that a round asked for
 * again (POST /monitors/{id}/check) goes to the VIES fake.
 */
const rig = crashRig("monitor-crash");

/** `count` new numbers, registered in the VIES fake under a name of their own. */
function registeredNumbers(seed: number, count: number): string[] {
  const fresh = wellFormedVatNumbers(prng(seed));
  const numbers: string[] = [];
  while (numbers.length < count) {
    const number = fresh();
    if (number.startsWith("DE")) continue;
    rig.vies().addNumber(number.slice(0, 2), number.slice(2), { valid: true, name: `TRADER ${number}` });
    numbers.push(number);
  }
  return numbers;
}

/** Polls the key's monitors until `done` holds for all of them; throws after `timeoutMs`. */
async function waitForAll(send: Send, done: (monitor: Monitor) => boolean, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const monitors = await allMonitors(send);
    if (monitors.every(done)) return monitors;
    if (Date.now() > deadline)
      throw new Error(`${monitors.filter((m) => !done(m)).length} monitors not there after ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

/** Polls until at least `count` of the key's monitors satisfy `done`. */
async function waitForSome(send: Send, done: (monitor: Monitor) => boolean, count: number) {
  for (;;) {
    if ((await allMonitors(send)).filter(done).length >= count) return;
    await Bun.sleep(20);
  }
}

const usageOf = async (send: Send) =>
  (await (await send("GET", "/usage")).json()) as { used: number; requests_this_month: number };

const recordStatus = async (send: Send, id: string) => (await send("GET", `/validations/${id}`)).status;

for (const deployment of DEPLOYMENTS) {
  describe(`monitors through crashes: ${deployment.name}`, () => {
    const { dataDir, instance, newKey } = rig.on(deployment, { VAT_CACHE_TTL_SECONDS: "1" });
    const { vies, receiver } = rig;
    const secretOf = async (keyId: string) => {
      if (!deployment.postgres)
        return (
          await adminCommand<{ webhook_secret: string }>(dataDir, "GET", `/keys/${keyId}/webhook-secret`)
        ).webhook_secret;
      const database = connectPostgres(process.env.DATABASE_URL ?? "");
      const [row] = await database.rows<{ secret: string }>(
        sql`SELECT secret FROM webhook_secrets WHERE key_id = ${keyId}`,
      );
      await database.close();
      return row?.secret ?? "";
    };

    test("kill -9 mid-round, twice, restart: every monitor answered once a round, billed once, one event each, delivered", async () => {
      vies().reset();
      vies().setLatency(60);
      const numbers = registeredNumbers(deployment.postgres ? 41 : 42, 240);
      let service = instance();
      await service.start();
      const { keyId, secret } = await newKey();
      let send = sendTo(service, secret);
      const callsBefore = vies().calls.log.length;

      // The first round: every number watched, each checked at once.
      const created = await send("POST", "/monitors", {
        body: JSON.stringify({ items: numbers.map((vat) => ({ vat })), webhook_url: receiver().url }),
        headers: { "content-type": "application/json" },
      });
      expect(created.status).toBe(201);
      await waitForSome(send, (monitor) => monitor.last_checked_at !== null, 80);
      await service.crash();
      service = instance();
      await service.start();
      send = sendTo(service, secret);
      const first = await waitForAll(send, (monitor) => monitor.last_checked_at !== null);
      expect(first.every((monitor) => monitor.last_result?.valid === true)).toBe(true);
      const firstCalls = callsPerNumber(vies(), callsBefore, numbers);
      expect(firstCalls.size).toBe(240);
      const repeated = [...firstCalls.values()].filter((count) => count > 1).length;
      // Only the checks under way at the kill (at most MONITOR_CONCURRENCY) may have been asked twice.
      expect(repeated).toBeLessThanOrEqual(64);
      const firstUsage = await usageOf(send);
      const billedFirst = first.filter((monitor) => monitor.last_result?.cached === false).length;
      expect(firstUsage).toMatchObject({ used: billedFirst, requests_this_month: 240 });

      // The second round, asked for: every registration lapsed meanwhile.
      for (const number of numbers) vies().addNumber(number.slice(0, 2), number.slice(2), { valid: false });
      await Bun.sleep(1100);
      const deliveredBefore = receiver().received.length;
      const callsBeforeSecond = vies().calls.log.length;
      for (const monitor of first)
        expect((await send("POST", `/monitors/${monitor.id}/check`)).status).toBe(202);
      await waitForSome(send, (monitor) => monitor.last_result?.valid === false, 80);
      await service.crash();
      service = instance();
      await service.start();
      try {
        send = sendTo(service, secret);
        const second = await waitForAll(send, (monitor) => monitor.last_result?.valid === false);
        const secondCalls = callsPerNumber(vies(), callsBeforeSecond, numbers);
        const repeatedSecond = [...secondCalls.values()].filter((count) => count > 1).length;
        expect(secondCalls.size).toBe(240);
        expect(repeatedSecond).toBeLessThanOrEqual(64);

        // Every monitor: its two rounds finished once each (its third record does not exist),
        // one event, whose webhook arrived — under one id, whatever the retries.
        const eventIds = new Set<string>();
        for (const monitor of second) {
          const events = await allEvents(send, monitor.id);
          expect({ monitor: monitor.id, types: events.map((event) => event.type) }).toEqual({
            monitor: monitor.id,
            types: ["vat.registration_changed"],
          });
          eventIds.add(events[0]?.id ?? "");
          expect(await recordStatus(send, `${monitor.id}.3`)).toBe(404);
        }
        const webhookSecret = await secretOf(keyId);
        const deadline = Date.now() + 60_000;
        let deliveredIds = new Set<string>();
        while (Date.now() < deadline) {
          deliveredIds = new Set(
            receiver()
              .received.slice(deliveredBefore)
              .map((delivery) => delivery.headers["webhook-id"] ?? ""),
          );
          if ([...eventIds].every((id) => deliveredIds.has(id))) break;
          await Bun.sleep(100);
        }
        expect([...deliveredIds].sort()).toEqual([...eventIds].sort());
        for (const delivery of receiver().received.slice(deliveredBefore)) {
          const event = new Webhook(webhookSecret).verify(delivery.body, delivery.headers) as {
            type: string;
            data: { current: { valid: boolean } };
          };
          expect(event).toMatchObject({
            type: "vat.registration_changed",
            data: { current: { valid: false } },
          });
        }
        const usage = await usageOf(send);
        const lapsedFresh = second.filter((monitor) => monitor.last_result?.cached === false).length;
        console.log(
          JSON.stringify({
            deployment: deployment.name,
            repeated: [repeated, repeatedSecond],
            billed: [billedFirst, lapsedFresh],
            deliveries: receiver().received.length - deliveredBefore,
            events: eventIds.size,
          }),
        );
        expect(usage).toMatchObject({ used: billedFirst + lapsedFresh, requests_this_month: 480 });
        expect(service.errors).toEqual([]);
      } finally {
        await service.stop();
      }
    });

    if (deployment.postgres) {
      test("two instances on one Postgres share the rounds: each check made once, by one of them; one event each", async () => {
        vies().reset();
        vies().setLatency(30);
        const numbers = registeredNumbers(43, 300);
        const [a, b] = [instance(), instance()];
        await Promise.all([a.start(), b.start()]);
        try {
          const { secret } = await newKey();
          const [sendA, sendB] = [sendTo(a, secret), sendTo(b, secret)];
          const callsBefore = vies().calls.log.length;
          const created = await sendA("POST", "/monitors", {
            body: JSON.stringify({ items: numbers.map((vat) => ({ vat })) }),
            headers: { "content-type": "application/json" },
          });
          expect(created.status).toBe(201);
          const first = await waitForAll(sendB, (monitor) => monitor.last_checked_at !== null);
          const [byA, byB] = [
            await counterTotal(a, "monitor_checks_total", 'outcome="answered"'),
            await counterTotal(b, "monitor_checks_total", 'outcome="answered"'),
          ];
          const calls = callsPerNumber(vies(), callsBefore, numbers);
          console.log(JSON.stringify({ byA, byB }));
          // Each of these checks made by one of them (each number asked once, below); on a
          // shared database they may have checked others' monitors too.
          expect(byA + byB).toBeGreaterThanOrEqual(300);
          expect(byA).toBeGreaterThan(0);
          expect(byB).toBeGreaterThan(0);
          expect(calls.size).toBe(300);
          expect([...calls.values()].every((count) => count === 1)).toBe(true);
          expect(await usageOf(sendA)).toMatchObject({ used: 300, requests_this_month: 300 });

          for (const number of numbers)
            vies().addNumber(number.slice(0, 2), number.slice(2), { valid: false });
          await Bun.sleep(1100);
          const callsBeforeSecond = vies().calls.log.length;
          await Promise.all(
            first.map((monitor, index) =>
              (index % 2 === 0 ? sendA : sendB)("POST", `/monitors/${monitor.id}/check`),
            ),
          );
          const second = await waitForAll(sendA, (monitor) => monitor.last_result?.valid === false);
          const secondCalls = callsPerNumber(vies(), callsBeforeSecond, numbers);
          expect([...secondCalls.values()].every((count) => count === 1)).toBe(true);
          expect(secondCalls.size).toBe(300);
          for (const monitor of second) {
            expect((await allEvents(sendB, monitor.id)).map((event) => event.type)).toEqual([
              "vat.registration_changed",
            ]);
          }
        } finally {
          await Promise.all([a.stop(), b.stop()]);
        }
      });
    }
  });
}
