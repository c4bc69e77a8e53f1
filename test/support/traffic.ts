/**
 * Sustained client traffic against a live service: several concurrent loops, each sending
 * POST /validate requests of a mix of kinds — billable IBANs, VAT numbers never asked
 * before (fresh upstream work), VAT numbers that are cached, and malformed input — and
 * recording every answer: status, error code, latency, whether it was billable, and
 * whether its body keeps the contract. Loops are seeded, so a run's choices replay.
 */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValidateResponseSchema } from "../../src/http/schemas.ts";
import { ErrorResponseSchema } from "../../src/kernel/errors.ts";
import examples from "../fixtures/iban-examples.json" with { type: "json" };
import { prng } from "./prng.ts";
import { wellFormedVatNumbers } from "./vat-numbers.ts";

export const KINDS = ["iban", "vat_fresh", "vat_cached", "bad"] as const;
export type Kind = (typeof KINDS)[number];

/** No answer: the connection failed (refused, reset) or the client gave up waiting. */
export const NETWORK_ERROR = 0;
export const CLIENT_TIMEOUT = -1;

export type Answer = {
  /** When the request was sent, in ms since the traffic started. */
  at: number;
  kind: Kind;
  /** Which of the traffic's keys sent it. */
  key: number;
  /** HTTP status, NETWORK_ERROR or CLIENT_TIMEOUT. */
  status: number;
  /** The error code of an error answer, or the VAT component's error code in a 200. */
  code: string | null;
  /** The error message of an error answer. */
  message: string | null;
  /** The Retry-After header, when sent. */
  retryAfter: string | null;
  ms: number;
  billable: boolean;
  /** In a 200: the key's billed units after this request, and the end of that period. */
  used: number | null;
  resetAt: string | null;
  /** For VAT components in a 200: served from cache / from the last-known-good copy. */
  cached: boolean;
  stale: boolean;
  /** A broken contract (not JSON, wrong shape), or the network error's message. */
  problem: string | null;
};

export type TrafficOptions = {
  /** Base URL of the service. */
  url: string;
  /** API keys, used in turn. */
  keys: string[];
  /** Concurrent request loops. */
  loops: number;
  seed: number;
  /** Relative weights of the kinds; a missing kind is not sent. */
  weights: Partial<Record<Kind, number>>;
  /** VAT numbers that are (or will soon be) in the cache. */
  cachedVat?: string[];
  /** How long one request may take before the client gives up (CLIENT_TIMEOUT). */
  timeoutMs?: number;
};

export type Traffic = {
  /** Every answer so far, in the order they arrived. */
  answers: Answer[];
  /** Milliseconds since the traffic started. */
  elapsed(): number;
  /** Stops sending and waits for the requests in flight to end. */
  stop(): Promise<void>;
};

const VALID_IBANS = Object.values(examples as Record<string, string>);
/** Malformed requests: each is refused with 400 and never billed. */
const BAD_BODIES = [
  "not json",
  "{",
  "[1, 2]",
  "{}",
  '{"iban": 12}',
  '{"iban": "XX12 3456"}',
  '{"iban": "DE89"}',
  '{"vat": "DE12"}',
  '{"vat": "QQ123456789"}',
  '{"vat": null}',
];

const validateResponse = TypeCompiler.Compile(ValidateResponseSchema);
const errorResponse = TypeCompiler.Compile(ErrorResponseSchema);

/** Reads one answer and checks it against the contract (ErrorResponse for every non-2xx). */
function readAnswer(status: number, contentType: string, text: string) {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { body: null, problem: `not JSON (${contentType}): ${text.slice(0, 120)}` };
  }
  if (!contentType.startsWith("application/json")) return { body, problem: `content-type ${contentType}` };
  const schema = status === 200 ? validateResponse : errorResponse;
  const first = schema.Errors(body).First();
  return { body, problem: first ? `${first.path}: ${first.message} in ${text.slice(0, 200)}` : null };
}

/** Starts the loops; they run until `stop()`. */
export function startTraffic(options: TrafficOptions): Traffic {
  const started = performance.now();
  const answers: Answer[] = [];
  const weights = KINDS.map((kind) => options.weights[kind] ?? 0);
  const totalWeight = weights.reduce((sum, weight) => sum + weight, 0);
  const cachedVat = options.cachedVat ?? [];
  if (cachedVat.length === 0 && (options.weights.vat_cached ?? 0) > 0) {
    throw new Error("vat_cached requests need cachedVat numbers");
  }
  const freshVat = wellFormedVatNumbers(prng(options.seed ^ 0x5eed));
  let stopped = false;
  let sent = 0;

  const bodyOf = (kind: Kind, random: ReturnType<typeof prng>): string => {
    switch (kind) {
      case "iban":
        return JSON.stringify({ iban: random.pick(VALID_IBANS) });
      case "vat_fresh":
        return JSON.stringify({ vat: freshVat() });
      case "vat_cached":
        return JSON.stringify({ vat: random.pick(cachedVat) });
      case "bad":
        return random.pick(BAD_BODIES);
    }
  };

  const kindOf = (random: ReturnType<typeof prng>): Kind => {
    let draw = random.next() * totalWeight;
    for (const [index, kind] of KINDS.entries()) {
      draw -= weights[index] ?? 0;
      if (draw < 0) return kind;
    }
    return "iban";
  };

  async function loop(id: number): Promise<void> {
    const random = prng(options.seed + id);
    while (!stopped) {
      const kind = kindOf(random);
      const keyIndex = sent++ % options.keys.length;
      const key = options.keys[keyIndex] ?? "";
      const body = bodyOf(kind, random);
      const at = performance.now();
      const answer: Answer = {
        at: at - started,
        kind,
        key: keyIndex,
        status: NETWORK_ERROR,
        code: null,
        message: null,
        retryAfter: null,
        ms: 0,
        billable: false,
        used: null,
        resetAt: null,
        cached: false,
        stale: false,
        problem: null,
      };
      try {
        const response = await fetch(`${options.url}/validate`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
        });
        const text = await response.text();
        answer.status = response.status;
        answer.retryAfter = response.headers.get("retry-after");
        const read = readAnswer(response.status, response.headers.get("content-type") ?? "", text);
        answer.problem = read.problem;
        const parsed = read.body as {
          billable?: boolean;
          usage?: { used: number; reset_at: string };
          error?: { code: string; message: string };
          vat?: { cached: boolean; stale: boolean; error: { code: string } | null };
        } | null;
        answer.billable = response.status === 200 && parsed?.billable === true;
        answer.used = response.status === 200 ? (parsed?.usage?.used ?? null) : null;
        answer.resetAt = response.status === 200 ? (parsed?.usage?.reset_at ?? null) : null;
        answer.code = parsed?.error?.code ?? parsed?.vat?.error?.code ?? null;
        answer.message = parsed?.error?.message ?? null;
        answer.cached = parsed?.vat?.cached ?? false;
        answer.stale = parsed?.vat?.stale ?? false;
      } catch (error) {
        const name = (error as Error).name;
        answer.status = name === "TimeoutError" || name === "AbortError" ? CLIENT_TIMEOUT : NETWORK_ERROR;
        answer.problem = (error as Error).message;
      }
      answer.ms = performance.now() - at;
      answers.push(answer);
      // A refused connection fails at once: do not spin while the service is down.
      if (answer.status <= 0) await Bun.sleep(20);
    }
  }

  const loops = Array.from({ length: options.loops }, (_, id) => loop(id));
  return {
    answers,
    elapsed: () => performance.now() - started,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** The value below which `p` (0–100) percent of `values` fall (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** The middle of `values`: the mean of the two middle ones when their number is even. */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1
    ? (sorted[Math.floor(middle)] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export type KindSummary = {
  count: number;
  /** `status` or `status code` (e.g. `503 service_unavailable`) → how many. */
  outcomes: Record<string, number>;
  billable: number;
  p50: number;
  p99: number;
  max: number;
};

/** Counts and latencies per kind of the answers sent in [fromMs, toMs). */
export function summarize(answers: Answer[], fromMs = 0, toMs = Infinity): Record<Kind, KindSummary> {
  const summary = {} as Record<Kind, KindSummary>;
  for (const kind of KINDS) {
    const mine = answers.filter((answer) => answer.kind === kind && answer.at >= fromMs && answer.at < toMs);
    const outcomes: Record<string, number> = {};
    for (const answer of mine) {
      const label =
        answer.status === 200 || answer.code === null
          ? String(answer.status)
          : `${answer.status} ${answer.code}`;
      outcomes[label] = (outcomes[label] ?? 0) + 1;
    }
    const latencies = mine.map((answer) => answer.ms);
    summary[kind] = {
      count: mine.length,
      outcomes,
      billable: mine.filter((answer) => answer.billable).length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.length ? latencies.reduce((most, ms) => Math.max(most, ms), 0) : Number.NaN,
    };
  }
  return summary;
}

/** The answers' summaries before an outage, during it (until the restart began) and after. */
export function aroundOutage(answers: Answer[], downAt: number, restartAt: number) {
  return {
    before: summarize(answers, 0, downAt),
    outage: summarize(answers, downAt, restartAt),
    after: summarize(answers, restartAt),
  };
}

/**
 * How long after `from` (ms into the traffic) the first answer sent since then that is `wanted`
 * arrived; null when none did.
 */
export function firstArrivalAfter(answers: Answer[], from: number, wanted: (answer: Answer) => boolean) {
  const first = answers.find((answer) => answer.at >= from && wanted(answer));
  return first ? first.at + first.ms - from : null;
}

/** How many answers the client received with `billable: true`. */
export function billableAnswers(answers: Answer[]): number {
  return answers.filter((answer) => answer.billable).length;
}

/**
 * Where the billed units in the database (`used`, summed over the traffic's keys) break the
 * billing invariants, given what clients were told: every answer received as billable holds
 * a unit of its own (no two billable answers of a key and period report the same unit
 * number, and there are at least as many units as billable answers), and no request told
 * anything else left one — units beyond the billable answers are at most the requests that
 * got no answer (cut off by a crash or a timeout after their commit). Empty when they hold.
 */
export function billingProblems(answers: Answer[], used: number): string[] {
  const problems: string[] = [];
  const units = new Set<string>();
  for (const answer of answers) {
    if (!answer.billable) continue;
    const unit = `key ${answer.key}, period to ${answer.resetAt}, unit ${answer.used}`;
    if (units.has(unit)) problems.push(`two billable answers report ${unit}`);
    units.add(unit);
  }
  const billable = billableAnswers(answers);
  const unanswered = answers.filter((answer) => answer.status <= 0).length;
  if (used < billable)
    problems.push(`${billable} answers received as billable, but only ${used} units billed`);
  if (used - billable > unanswered) {
    problems.push(
      `${used - billable} units billed beyond the billable answers, with only ${unanswered} requests unanswered`,
    );
  }
  return problems;
}

/** Answers whose body broke the contract. */
export function contractProblems(answers: Answer[]): Answer[] {
  return answers.filter((answer) => answer.status > 0 && answer.problem !== null);
}
