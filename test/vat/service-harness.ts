import { afterEach } from "bun:test";
import { createLogger, type Logger } from "../../src/kernel/log.ts";
import type { MatchRequest } from "../../src/matching/schema.ts";
import type { KeyValueStore } from "../../src/store/kv.ts";
import { createMemoryStore } from "../../src/store/memory.ts";
import { createChUidClient } from "../../src/vat/ch/client.ts";
import { checkVatFormat } from "../../src/vat/format/check-vat-format.ts";
import { createNoBrregClient } from "../../src/vat/no/client.ts";
import { createVatService, type VatService, type VatServiceOptions } from "../../src/vat/service.ts";
import {
  createStatusService,
  DEFAULT_STATUS_TTL_SECONDS,
  type StatusOutcome,
  type StatusService,
} from "../../src/vat/status.ts";
import { createUkVatClient } from "../../src/vat/uk/client.ts";
import { createViesClient } from "../../src/vat/vies/client.ts";
import { createViesStatusClient } from "../../src/vat/vies/status.ts";
import { type BrregFake, startBrregFake } from "../fakes/brreg.ts";
import { type HmrcFake, startHmrcFake } from "../fakes/hmrc.ts";
import { startUidRegisterFake, type UidRegisterFake } from "../fakes/uid-register.ts";
import { startViesFake, type ViesFake, type ViesStatusBehaviour } from "../fakes/vies.ts";
import { type ManualClock, manualClock } from "../support/manual-clock.ts";

/** A UK number that passes our GB format check; registered at the HMRC fake when the UK is on. */
export const UK_VRN = "980780684";
export const UK_COMPANY = { name: "UK TRADING LTD", lines: ["1 HIGH STREET", "LEEDS"], postcode: "LS1 1AA" };

/** The first `count` numbers `prefix + n` from `from` up that pass the format check. */
export function wellFormedNumbers(prefix: string, from: number, count: number): string[] {
  const found: string[] = [];
  for (let n = from; found.length < count; n += 1) {
    if (checkVatFormat(`${prefix}${n}`).ok) found.push(`${prefix}${n}`);
  }
  return found;
}

/** Retries fast enough for tests; the jitter is fixed at its midpoint. */
const FAST_RETRY = { baseDelayMs: 20, maxDelayMs: 80, minAttemptMs: 50 };

export type HarnessOptions = Partial<
  Omit<VatServiceOptions, "uk" | "vies" | "status" | "store" | "clock" | "log">
> & {
  /** Starts the HMRC fake and gives the service a UK client. */
  ukEnabled?: boolean;
  /** Gives the service no client for the Swiss (`ch`) or the Norwegian (`no`) register. */
  disabled?: Array<"ch" | "no">;
  /** Our own VAT number, so VIES issues consultation numbers. */
  requesterVat?: string | null;
  /** Defaults to an in-process store driven by the harness clock. */
  store?: KeyValueStore;
};

export type ServiceHarness = {
  vies: ViesFake;
  uid: UidRegisterFake;
  brreg: BrregFake;
  hmrc: HmrcFake | null;
  clock: ManualClock;
  store: KeyValueStore;
  status: StatusService;
  service: VatService;
  /** Every log line, parsed. */
  logged: () => Array<Record<string, unknown>>;
  /** Makes the fake report `behaviour`, lets the status TTL pass and reads the status again. */
  reportStatus(behaviour: ViesStatusBehaviour): Promise<StatusOutcome>;
  /** `plan`, then `resolve` when the plan needs the upstream: one request's VAT answer. */
  check(input: string, match?: MatchRequest): Promise<Checked>;
  stop(): Promise<void>;
};

export type Checked = Awaited<ReturnType<VatService["resolve"]>> & { phase: "plan" | "resolve" };

function capturingLogger(): { log: Logger; logged: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  return {
    log: createLogger("debug", (line) => lines.push(line)),
    logged: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** Answers a check the way a caller does; the plan's answer is reported like a resolution. */
export async function checkWith(service: VatService, input: string, match?: MatchRequest): Promise<Checked> {
  const plan = await service.plan(input, match);
  if (plan.kind === "upstream") return { ...(await service.resolve(plan)), phase: "resolve" };
  return {
    result: plan.result,
    fresh: false,
    retryAfterSeconds: null,
    upstream: { attempts: 0, ms: 0, detail: null, shared: false, path: null },
    phase: "plan",
  };
}

/** A VAT service wired to a VIES fake (and an HMRC fake when the UK is on), a manual clock and a real store. */
export async function startServiceHarness(options: HarnessOptions = {}): Promise<ServiceHarness> {
  const {
    ukEnabled = false,
    disabled = [],
    requesterVat = null,
    store: givenStore,
    ...serviceOptions
  } = options;
  const clock = manualClock();
  const vies = await startViesFake();
  const uid = await startUidRegisterFake();
  const brreg = await startBrregFake();
  const store = givenStore ?? createMemoryStore({ maxEntries: 10_000, clock });
  const { log, logged } = capturingLogger();
  const status = createStatusService({
    client: createViesStatusClient({ baseUrl: vies.baseUrl }),
    store,
    clock,
    log,
  });
  let hmrc: HmrcFake | null = null;
  if (ukEnabled) {
    hmrc = startHmrcFake({ clientId: "id", clientSecret: "secret" });
    hmrc.addNumber(UK_VRN, UK_COMPANY);
  }
  const uk =
    hmrc === null
      ? null
      : createUkVatClient({ baseUrl: hmrc.baseUrl, clientId: "id", clientSecret: "secret", clock, log });
  const service = createVatService({
    vies: createViesClient({
      baseUrl: vies.baseUrl,
      requesterVat,
      clock,
      log: (event, fields) => log.warn(event, fields),
    }),
    uk,
    ch: disabled.includes("ch") ? null : createChUidClient({ baseUrl: uid.baseUrl, clock, log }),
    no: disabled.includes("no") ? null : createNoBrregClient({ baseUrl: brreg.baseUrl, clock }),
    status,
    store,
    clock,
    log,
    random: () => 0.5,
    ...serviceOptions,
    retry: { ...FAST_RETRY, ...serviceOptions.retry },
  });
  // Known status from the start, so no background refresh races a test that has not moved the clock.
  await status.get();
  return {
    vies,
    uid,
    brreg,
    hmrc,
    clock,
    store,
    status,
    service,
    logged,
    reportStatus(behaviour) {
      vies.setStatus(behaviour);
      clock.advance(DEFAULT_STATUS_TTL_SECONDS * 1000);
      return status.get();
    },
    check: (input, match) => checkWith(service, input, match),
    async stop() {
      await Promise.all([vies.stop(), uid.stop(), brreg.stop()]);
      await hmrc?.stop();
      await store.close();
    },
  };
}

/** A harness factory for one test file; every harness it starts is stopped after its test. */
export function serviceHarnesses(): (options?: HarnessOptions) => Promise<ServiceHarness> {
  const started: ServiceHarness[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((harness) => harness.stop()));
  });
  return async (options) => {
    const harness = await startServiceHarness(options);
    started.push(harness);
    return harness;
  };
}
