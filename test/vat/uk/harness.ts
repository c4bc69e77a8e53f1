import { createLogger, type Logger } from "../../../src/kernel/log.ts";
import { createUkVatClient, type UkVatClientConfig } from "../../../src/vat/uk/client.ts";
import type { UpstreamOutcome } from "../../../src/vat/upstream.ts";
import { type HmrcCompany, type HmrcFake, startHmrcFake } from "../../fakes/hmrc.ts";
import { type ManualClock, manualClock } from "../../support/manual-clock.ts";

export const CLIENT_ID = "fake-client-id";
export const CLIENT_SECRET = "fake-client-secret";

/** HMRC's own sandbox example (the v2.0 OpenAPI document). */
export const SANDBOX_VRN = "553557881";
export const SANDBOX_COMPANY: HmrcCompany = {
  name: "Credite Sberger Donal Inc.",
  lines: ["131B Barton Hamlet"],
  postcode: "SW97 5CK",
};
/** A requester from HMRC's published sandbox test VRNs. */
export const REQUESTER_VRN = "146295999727";

/** Where every clock of these tests starts. */
export const START = Date.parse("2025-03-01T10:00:00Z");

/** A logger whose JSON lines the test can read back. */
export function capturingLogger(): { log: Logger; events: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  return {
    log: createLogger("debug", (line) => lines.push(line)),
    events: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

export type Harness = {
  fake: HmrcFake;
  clock: ManualClock;
  logged: () => Array<Record<string, unknown>>;
  client: ReturnType<typeof createUkVatClient>;
  check(number: string, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<UpstreamOutcome>;
};

/** A running fake with the sandbox company registered, and a client pointed at it. */
export function startHarness(
  overrides: Partial<UkVatClientConfig> = {},
  fakeOptions: { tokenLifetimeSeconds?: number } = {},
): Harness {
  const fake = startHmrcFake({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...fakeOptions });
  fake.addNumber(SANDBOX_VRN, SANDBOX_COMPANY);
  fake.addNumber(REQUESTER_VRN, {
    name: "Requester Ltd",
    lines: ["1 High Street", "Leeds"],
    postcode: "LS1 1AA",
  });
  const clock = manualClock(START);
  const { log, events } = capturingLogger();
  const client = createUkVatClient({
    baseUrl: fake.baseUrl,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    clock,
    log,
    ...overrides,
  });
  return {
    fake,
    clock,
    logged: events,
    client,
    check: (number, { timeoutMs = 2_000, signal } = {}) =>
      client.check({ prefix: "GB", number }, signal === undefined ? { timeoutMs } : { timeoutMs, signal }),
  };
}
