import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import type { Monitor, MonitorEvent } from "../../src/monitors/schema.ts";
import { type Send, sendTo } from "../support/batches.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { allEvents, readMonitor, waitForMonitor, watch, watchList } from "../support/monitors.ts";
import { prng } from "../support/prng.ts";
import { wellFormedVatNumbers } from "../support/vat-numbers.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

/**
 * Monitors checked by the service's own worker, on a manual clock: the first check at once,
 * then one every interval, spread; changes as events, signed webhooks, billed as /validate.
 */

const DAY = 86_400_000;
let harness: Harness;
let receiver: WebhookReceiver;
const numbers = wellFormedVatNumbers(prng(20261126));

beforeAll(async () => {
  harness = await startHarness({
    background: true,
    env: {
      BATCH_POLL_MS: "20",
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_BACKOFF_BASE_MS: "100",
    },
  });
  receiver = startWebhookReceiver();
});
afterAll(async () => {
  await harness.close();
  await receiver.stop();
});

async function keyed(quota?: number): Promise<{ keyId: string; send: Send }> {
  const key = await harness.createKey("pro", { rate: 1_000_000, ...(quota !== undefined && { quota }) });
  return { keyId: key.keyId, send: sendTo(harness, key.secret) };
}

/** A new number the VIES fake knows as registered, under `name` (never German: Germany discloses neither). */
function registered(name: string, address = "1 MAIN STREET"): string {
  let number = numbers();
  while (number.startsWith("DE")) number = numbers();
  harness.vies.addNumber(number.slice(0, 2), number.slice(2), { valid: true, name, address });
  return number;
}

const used = async (send: Send) =>
  (await (await send("GET", "/usage")).json()) as { used: number; requests_this_month: number };

const now = () => new Date(harness.clock.now()).toISOString();

/** VIES calls so far for one number. */
const callsFor = (number: string) =>
  harness.vies.calls.log.filter((call) => `${call.countryCode}${call.vatNumber}` === number).length;

/** Moves the clock to the monitor's next check and waits until the check was made (or put off). */
async function round(send: Send, monitor: Monitor): Promise<Monitor> {
  const due = Date.parse(monitor.next_check_at ?? "");
  expect(due).toBeGreaterThan(harness.clock.now());
  harness.clock.advance(due - harness.clock.now());
  return waitForMonitor(send, monitor.id, (checked) => checked.next_check_at !== monitor.next_check_at);
}

/**
 * The next round that asks the authority: a round within a day of the last fresh answer is
 * answered by the cache (free, and no news), so such rounds are let pass first.
 */
async function askedRound(
  send: Send,
  monitor: Monitor,
): Promise<Monitor & { due: string; cachedRounds: number }> {
  let current = monitor;
  // A round can fall within the cache's life of the last answer (rounds are spread over the
  // interval at random): it is a check, answered from the cache, and takes a check's number.
  for (let cachedRounds = 0; ; cachedRounds++) {
    const calls = callsFor(monitor.vat_number);
    const due = current.next_check_at ?? "";
    current = await round(send, current);
    if (callsFor(monitor.vat_number) > calls) return { ...current, due, cachedRounds };
    expect(current.last_result?.cached).toBe(true);
  }
}

/** Units billed this month to the key. */
const billed = async (send: Send) => (await used(send)).used;

/** Verifies a webhook the receiver got with the key's signing secret; its body. */
async function verified(keyId: string, index: number): Promise<{ id: string; event: MonitorEvent }> {
  const [delivery] = (await receiver.waitFor(index + 1)).slice(index);
  if (!delivery) throw new Error("no webhook");
  const secret = (await harness.services.keyAdmin.webhookSecret(keyId, false))?.webhook_secret ?? "";
  const event = new Webhook(secret).verify(delivery.body, delivery.headers) as MonitorEvent;
  return { id: delivery.headers["webhook-id"] ?? "", event };
}

describe("the first check", () => {
  test("runs at once, billed as /validate bills a fresh answer; the next round falls within the interval", async () => {
    const { send } = await keyed();
    const number = registered("ACME TRADING BV");
    const created = await watch(send, { vat: number, interval_days: 30 });
    const checked = await waitForMonitor(send, created.id, (monitor) => monitor.last_checked_at !== null);
    expect(checked.last_result).toMatchObject({ valid: true, name: "ACME TRADING BV", cached: false });
    expect(checked.last_checked_at).toBe(now());
    const next = Date.parse(checked.next_check_at ?? "");
    expect(next).toBeGreaterThan(harness.clock.now());
    expect(next).toBeLessThanOrEqual(harness.clock.now() + 30 * DAY);
    expect(await used(send)).toMatchObject({ used: 1, requests_this_month: 1 });
    const record = await send("GET", `/validations/${created.id}.1`);
    expect(record.status).toBe(200);
    expect(await record.json()).toMatchObject({ vat_number: number, valid: true, name: "ACME TRADING BV" });
  });

  test("a number the cache holds fresh is a free check", async () => {
    const { send: other } = await keyed();
    const number = registered("CACHED SA");
    expect((await harness.validate((await harness.createKey("pro")).secret, { vat: number })).status).toBe(
      200,
    );
    const created = await watch(other, { vat: number });
    const checked = await waitForMonitor(other, created.id, (monitor) => monitor.last_checked_at !== null);
    expect(checked.last_result).toMatchObject({ valid: true, cached: true });
    expect(await used(other)).toMatchObject({ used: 0, requests_this_month: 1 });
  });
});

describe("a registration that lapses", () => {
  test("one signed vat.registration_changed; the outage before it makes none and costs nothing", async () => {
    const { keyId, send } = await keyed();
    const number = registered("LAPSING GMBH");
    const before = receiver.received.length;
    const created = await watch(send, { vat: number, reference: "c-7", webhook_url: receiver.url });
    const first = await waitForMonitor(send, created.id, (monitor) => monitor.last_checked_at !== null);

    // The next round meets an outage: no event, tried again within seconds, unbilled.
    harness.vies.setBehaviour(number.slice(0, 2), { kind: "fault", fault: "MS_UNAVAILABLE" });
    const failed = await askedRound(send, first);
    expect(failed.last_result?.checked_at).toBe(first.last_result?.checked_at);
    expect(failed.last_result?.valid).toBe(true);
    const retryIn = Date.parse(failed.next_check_at ?? "") - harness.clock.now();
    expect(retryIn).toBeGreaterThan(0);
    expect(retryIn).toBeLessThanOrEqual(5_000);
    expect(await allEvents(send, created.id)).toEqual([]);

    // Meanwhile the registration lapsed; the retry finds it.
    harness.vies.clearBehaviour(number.slice(0, 2));
    harness.vies.addNumber(number.slice(0, 2), number.slice(2), { valid: false });
    const lapsed = await askedRound(send, failed);
    expect(lapsed.last_result).toMatchObject({ valid: false, name: null });
    // The round keeps its place in the cycle: one interval after the one that was due.
    expect(Date.parse(lapsed.next_check_at ?? "")).toBe(Date.parse(failed.due) + 30 * DAY);

    const events = await allEvents(send, created.id);
    expect(events).toHaveLength(1);
    const [event] = events as [(typeof events)[number]];
    expect(event).toMatchObject({
      type: "vat.registration_changed",
      created_at: lapsed.last_checked_at,
      data: {
        previous: { valid: true, name: "LAPSING GMBH" },
        current: { valid: false },
        monitor: { id: created.id, reference: "c-7", last_result: { valid: false } },
      },
    });
    const delivered = await verified(keyId, before);
    expect(delivered.id).toBe(event.id);
    expect(delivered.event).toEqual({ type: event.type, data: event.data });
    // Billed: the two answers of the authority, each with its record; the outage, nothing.
    const sameMonth = first.last_checked_at?.slice(0, 7) === lapsed.last_checked_at?.slice(0, 7);
    expect(await billed(send)).toBe(sameMonth ? 2 : 1);
    // The checks are numbered from 1; the outage's is none of them, the cache's answers are.
    const lapsedCheck = 1 + failed.cachedRounds + lapsed.cachedRounds + 1;
    for (const [check, valid] of [
      [1, true],
      [lapsedCheck, false],
    ] as const) {
      const proof = await send("GET", `/validations/${created.id}.${check}`);
      expect({ check, status: proof.status }).toEqual({ check, status: 200 });
      expect(((await proof.json()) as { valid: boolean }).valid).toBe(valid);
    }
    expect((await send("GET", `/validations/${created.id}.${lapsedCheck + 1}`)).status).toBe(404);
    const afterDelivery = await waitForMonitor(
      send,
      created.id,
      (monitor) => monitor.webhook?.last_status === 200,
    );
    expect(afterDelivery.webhook).toMatchObject({ url: receiver.url, attempts: 1, last_status: 200 });

    // Still lapsed a round later: no news, no event.
    await askedRound(send, lapsed);
    expect(await allEvents(send, created.id)).toHaveLength(1);
    expect(receiver.received.slice(before)).toHaveLength(1);
  });

  test("a webhook refused at first is retried with the same webhook-id", async () => {
    const { keyId, send } = await keyed();
    const number = registered("BACK AGAIN OY");
    harness.vies.addNumber(number.slice(0, 2), number.slice(2), { valid: false });
    const created = await watch(send, { vat: number, webhook_url: receiver.url });
    const first = await waitForMonitor(send, created.id, (monitor) => monitor.last_checked_at !== null);
    expect(first.last_result?.valid).toBe(false);
    const before = receiver.received.length;
    receiver.answerWith([500, 503]);
    harness.vies.addNumber(number.slice(0, 2), number.slice(2), { valid: true, name: "BACK AGAIN OY" });
    await askedRound(send, first);
    const retried = await waitForMonitor(send, created.id, (monitor) => monitor.webhook?.last_status === 200);
    expect(retried.webhook?.attempts).toBe(3);
    const ids = receiver.received.slice(before).map((delivery) => delivery.headers["webhook-id"]);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
    const { event } = await verified(keyId, before + 2);
    expect(event).toMatchObject({ type: "vat.registration_changed", data: { current: { valid: true } } });
  });
});

describe("details and match", () => {
  test("a new address is vat.details_changed; a new name under a watched match is details and match changed", async () => {
    const { send } = await keyed();
    const number = registered("NORDIC PAPER AB", "STORGATAN 1\n111 22 STOCKHOLM");
    const created = await watch(send, { vat: number, match: { name: "Nordic Paper AB" } });
    const first = await waitForMonitor(send, created.id, (monitor) => monitor.last_checked_at !== null);
    expect(first.last_result?.match?.overall).toBe("match");

    harness.vies.addNumber(number.slice(0, 2), number.slice(2), {
      valid: true,
      name: "NORDIC PAPER AB",
      address: "KUNGSGATAN 9\n111 43 STOCKHOLM",
    });
    const moved = await askedRound(send, first);
    expect((await allEvents(send, created.id)).map((event) => event.type)).toEqual(["vat.details_changed"]);

    harness.vies.addNumber(number.slice(0, 2), number.slice(2), {
      valid: true,
      name: "SCANDI PULP HOLDING AB",
      address: "KUNGSGATAN 9\n111 43 STOCKHOLM",
    });
    await askedRound(send, moved);
    const events = await allEvents(send, created.id);
    expect(events.map((event) => event.type)).toEqual([
      "vat.details_changed",
      "vat.details_changed",
      "vat.match_changed",
    ]);
    expect(events[2]?.data.previous.match?.overall).toBe("match");
    expect(events[2]?.data.current.match?.overall).toBe("mismatch");
    // Pages of one, in order.
    expect((await allEvents(send, created.id, 1)).map((event) => event.id)).toEqual(
      events.map((event) => event.id),
    );
  });
});

describe("text the database cannot hold", () => {
  test("a name from the authority with a NUL or half a UTF-16 pair is stored and sent without it", async () => {
    const { send } = await keyed();
    const number = registered("ODD NAME LTD");
    const created = await watch(send, { vat: number });
    const first = await waitForMonitor(send, created.id, (monitor) => monitor.last_checked_at !== null);
    harness.vies.addNumber(number.slice(0, 2), number.slice(2), {
      valid: true,
      name: "ODD\u0000 NAME \ud800LTD",
    });
    const renamed = await askedRound(send, first);
    expect(renamed.last_result?.name).not.toContain("\u0000");
    const [event] = await allEvents(send, created.id);
    expect(event?.type).toBe("vat.details_changed");
    expect(event?.data.current.name).toBe(renamed.last_result?.name);
  });
});

describe("the quota", () => {
  test("used up: the check waits for the reset (still active, next_check_at says when), no event, nothing billed", async () => {
    const { send } = await keyed(1);
    const [a, b] = [registered("FIRST KFT"), registered("SECOND KFT")];
    const first = await watch(send, { vat: a });
    await waitForMonitor(send, first.id, (monitor) => monitor.last_checked_at !== null);
    const second = await watch(send, { vat: b });
    const waiting = await waitForMonitor(
      send,
      second.id,
      (monitor) => monitor.next_check_at !== second.next_check_at,
    );
    const reset = Date.parse(`${now().slice(0, 7)}-01T00:00:00.000Z`);
    const nextMonth = new Date(reset);
    nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1);
    expect(waiting).toMatchObject({ status: "active", last_checked_at: null, last_result: null });
    const at = Date.parse(waiting.next_check_at ?? "");
    expect(at).toBeGreaterThanOrEqual(nextMonth.getTime());
    expect(at).toBeLessThan(nextMonth.getTime() + 3_600_000);
    expect(await used(send)).toMatchObject({ used: 1, requests_this_month: 1 });
    expect(await allEvents(send, second.id)).toEqual([]);
    // After the reset it is checked, and billed in the new month (the first, paused, does not
    // take the month's one unit before it).
    await send("PATCH", `/monitors/${first.id}`, { body: JSON.stringify({ status: "paused" }) });
    harness.clock.advance(at - harness.clock.now());
    const checked = await waitForMonitor(send, second.id, (monitor) => monitor.last_checked_at !== null);
    expect(checked.last_result).toMatchObject({ valid: true, name: "SECOND KFT" });
    expect(await used(send)).toMatchObject({ used: 1, requests_this_month: 1 });
  });
});

describe("the schedule", () => {
  test("a list watched at once spreads its next round over the interval: no stampede", async () => {
    const { send } = await keyed();
    const items = Array.from({ length: 200 }, () => ({ vat: numbers(), interval_days: 30 }));
    const { monitors } = await watchList(send, { items });
    const start = harness.clock.now();
    const checked: Monitor[] = [];
    for (const monitor of monitors)
      checked.push(await waitForMonitor(send, monitor.id, (m) => m.last_checked_at !== null));
    // Ten slices of three days each hold about a tenth; none is empty or holds a crowd.
    const slices = Array.from({ length: 10 }, () => 0);
    for (const monitor of checked) {
      const offset = Date.parse(monitor.next_check_at ?? "") - start;
      expect(offset).toBeGreaterThan(0);
      expect(offset).toBeLessThanOrEqual(30 * DAY);
      const slice = Math.min(9, Math.floor(offset / (3 * DAY)));
      slices[slice] = (slices[slice] ?? 0) + 1;
    }
    console.log(`next rounds of 200 monitors per 3-day slice: ${slices.join(", ")}`);
    expect(Math.min(...slices)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...slices)).toBeLessThanOrEqual(45);
  });

  test("a paused monitor is not checked when due; asked to check, it is checked once and stays paused", async () => {
    const { send } = await keyed();
    const created = await watch(send, { vat: registered("QUIET SRL"), interval_days: 1 });
    const first = await waitForMonitor(send, created.id, (monitor) => monitor.last_checked_at !== null);
    await send("PATCH", `/monitors/${created.id}`, { body: JSON.stringify({ status: "paused" }) });
    const calls = callsFor(created.vat_number);
    harness.clock.advance(3 * DAY);
    await Bun.sleep(300);
    expect(callsFor(created.vat_number)).toBe(calls);
    expect(await readMonitor(send, created.id)).toMatchObject({
      status: "paused",
      next_check_at: null,
      last_checked_at: first.last_checked_at,
    });
    expect((await send("POST", `/monitors/${created.id}/check`)).status).toBe(202);
    const checked = await waitForMonitor(
      send,
      created.id,
      (monitor) => monitor.last_checked_at !== first.last_checked_at,
    );
    expect(checked).toMatchObject({ status: "paused", next_check_at: null, last_checked_at: now() });
    expect(callsFor(created.vat_number)).toBe(calls + 1);
  });
});
