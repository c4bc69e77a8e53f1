/**
 * A local VIES over real HTTP: both front doors to the same checks, the SOAP `checkVatService`
 * (checkVat, checkVatApprox) and the REST `check-vat-number`, answered from one state (one
 * registry, one member state's behaviour, latency and limits), plus the REST `check-status`
 * endpoint; with the outage shapes seen in the wild, which can break one door while the other
 * works. It is built on `node:http` rather than `Bun.serve` because resets, garbage bytes and
 * truncated bodies need the raw socket.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  html,
  proxyErrorPage,
  type Reply,
  readBody,
  resetSocket,
  sendGarbage,
  sendTruncated,
  startRawServer,
} from "./raw-http.ts";
import {
  answerEnvelope,
  brusselsRequestDate,
  faultEnvelope,
  jacksonStringify,
  type MatchCode,
  newRequestIdentifier,
  parseRestRequest,
  parseSoapRequest,
  restAnswer,
  restError,
  springError,
  type TraderField,
  type TraderFields,
  VAT_NUMBER_PATTERN,
  VIES_COUNTRIES,
  type ViesOperation,
  WEBLOGIC_500_PAGE,
} from "./vies-wire.ts";

export const VIES_SERVICE_PATH = "/taxation_customs/vies/services/checkVatService";
export const VIES_REST_CHECK_PATH = "/taxation_customs/vies/rest-api/check-vat-number";
export const VIES_STATUS_PATH = "/taxation_customs/vies/rest-api/check-status";

/** The two front doors to the same checks. */
export type ViesDoor = "soap" | "rest";

/** Every faultstring VIES is known to send (current WSDL, test service), plus the pre-2021 `SERVER_BUSY`. */
export const VIES_FAULT_STRINGS = [
  "INVALID_INPUT",
  "INVALID_REQUESTER_INFO",
  "SERVICE_UNAVAILABLE",
  "MS_UNAVAILABLE",
  "TIMEOUT",
  "VAT_BLOCKED",
  "IP_BLOCKED",
  "GLOBAL_MAX_CONCURRENT_REQ",
  "GLOBAL_MAX_CONCURRENT_REQ_TIME",
  "MS_MAX_CONCURRENT_REQ",
  "MS_MAX_CONCURRENT_REQ_TIME",
  "SERVER_BUSY",
] as const;

export type ViesFaultString = (typeof VIES_FAULT_STRINGS)[number];

/** How the fake answers a check instead of looking the number up, in the wire format of the door asked. */
export type ViesBehaviour =
  /**
   * VIES's error code (a ViesFaultString, a REST-only `VOW-ERR-*`, or anything else to test
   * unknown codes): a SOAP fault with it as the faultstring, a REST `errorWrappers` entry.
   * HTTP 200 by default, as VIES answers since 2022; 500 by default for the pre-2022 `soap` style.
   */
  | { kind: "fault"; fault: string; status?: 200 | 400 | 500; style?: "env" | "soap" }
  /** WebLogic's HTML page for 500, a proxy page for 502/503/504. */
  | { kind: "html"; status: 500 | 502 | 503 | 504 }
  /** Any body, for garbage and foreign formats. */
  | { kind: "body"; status: number; contentType: string; body: string }
  /** Read the request, never answer (until the client gives up, `reset()` or `stop()`). */
  | { kind: "hang" }
  /** Send the status line and headers, never the body. */
  | { kind: "stall" }
  /** Close the connection without answering (TCP RST). */
  | { kind: "reset" }
  /** Announce a body, send half of it, close the connection. */
  | { kind: "truncate" }
  /** Answer with bytes that are not HTTP, then close. */
  | { kind: "garbage" };

export type ViesStatusBehaviour =
  /** The normal answer; `countries` overrides the availability of the listed codes (default `Available`). */
  | { kind: "json"; vowAvailable?: boolean; countries?: Record<string, string> }
  | { kind: "actionFailed"; error?: string; status?: number }
  | { kind: "html"; status: 500 | 502 | 503 | 504 }
  | { kind: "body"; status: number; contentType: string; body: string }
  | { kind: "hang" };

export type ViesRegistryEntry = {
  valid: boolean;
  /** As VIES would send it; `---` when omitted. DE and ES always answer `---` for valid numbers. */
  name?: string;
  /** Raw, as VIES would send it (NL addresses start and end with `\n`); `---` when omitted. */
  address?: string;
  /** What a state that compares trader details (ES) holds beside the name: it discloses none of it. */
  trader?: Omit<TraderFields, "name">;
};

export type ViesCall = {
  door: ViesDoor;
  /** The SOAP operation; `check-vat-number` through the REST door; null when unreadable. */
  operation: ViesOperation | "check-vat-number" | null;
  countryCode: string | null;
  vatNumber: string | null;
  requester: { countryCode: string; vatNumber: string } | null;
  /** The trader details of an approximate check, as sent (empty for none). */
  trader: TraderFields;
  contentType: string | null;
  soapAction: string | null;
};

export type ViesCalls = {
  /** Check requests received through either door, readable or not. */
  total: number;
  byDoor: Record<ViesDoor, number>;
  byCountry: Record<string, number>;
  log: ViesCall[];
  /** The most requests for one member state that were in flight at the same time. */
  maxInFlight: Record<string, number>;
  /** REST check-status requests received. */
  status: number;
};

export type ViesFakeOptions = {
  /** Replaces the default registry. */
  registry?: Record<string, ViesRegistryEntry>;
  /** Time source for `requestDate`; defaults to the system clock. */
  now?: () => number;
};

export type ViesFake = {
  /** `http://127.0.0.1:<port>`; pass it as the client's base URL. */
  baseUrl: string;
  /** Live counters, cleared by `reset()`. */
  calls: ViesCalls;
  /** Replaces the registry; keys are the full number with its VIES prefix (`NL854265259B01`). */
  setRegistry(entries: Record<string, ViesRegistryEntry>): void;
  addNumber(prefix: string, number: string, entry: ViesRegistryEntry): void;
  /**
   * Applies `behaviour` to calls for `prefix` (or `"*"`: every prefix), through `door` or, by
   * default, through either (VIES or the member state failing, whichever door is asked). With
   * `times`, only the next `times` calls, after which the previous behaviour (or the registry)
   * answers again. A door's own behaviour goes before one set for both.
   */
  setBehaviour(prefix: string, behaviour: ViesBehaviour, options?: { times?: number; door?: ViesDoor }): void;
  clearBehaviour(prefix: string): void;
  /** A latency for every call, or per prefix (`{ DE: 800, "*": 50 }`). */
  setLatency(latency: number | Record<string, number>): void;
  /** Answers `MS_MAX_CONCURRENT_REQ` when more than `limit` calls for `prefix` (or `"*"`: each prefix) are in flight. */
  setConcurrencyLimit(prefix: string, limit: number | null): void;
  setStatus(behaviour: ViesStatusBehaviour): void;
  /** Back to the defaults: registry, behaviours, latency, limits, status, counters; ends hanging calls. */
  reset(): void;
  stop(): Promise<void>;
};

/** Numbers from the recorded and published samples in the protocol reference. */
export const DEFAULT_VIES_REGISTRY: Record<string, ViesRegistryEntry> = {
  NL854265259B01: { valid: true, name: "GITHUB B.V.", address: "\nVIJZELSTRAAT 00068\n1017HL AMSTERDAM\n" },
  BE0244142664: {
    valid: true,
    name: "NV OR De Vlaamse Radio- en Televisieomroeporganisatie",
    address: "Auguste Reyerslaan 52\n1030 Schaarbeek",
  },
  IE6388047V: {
    valid: true,
    name: "GOOGLE IRELAND LIMITED",
    address: "3RD FLOOR, GORDON HOUSE, BARROW STREET, DUBLIN 4",
  },
  LU20260743: {
    valid: true,
    name: "AMAZON EU SARL",
    address: "38, AVENUE JOHN F. KENNEDY\nL-1855  LUXEMBOURG",
  },
  DE811569869: { valid: true, name: "registered but not disclosed", address: "not disclosed" },
  // The published ES sample (VP §4): name, street and postcode matched, city (Madrid) not.
  ESB83891812: {
    valid: true,
    name: "Rodrisa Automoviles",
    address: "Avda. Reina Victoria 28430 Alcorcón",
    trader: { street: "Avda. Reina Victoria", postcode: "28430", city: "Alcorcón" },
  },
};

/** Member states that never disclose name and address. */
const NON_DISCLOSING = new Set(["DE", "ES"]);
/** Member states that compare trader details themselves (VIES `/countries`, `approxMatching`, 2026-08-05). */
const APPROX_MATCHING = new Set(["ES"]);

/** Case, accents, spacing and punctuation aside: how the fake's matching state compares. */
function folded(value: string): string {
  return value
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "");
}

/**
 * The codes an approximate check answers, one per trader detail: a matching state compares what
 * was sent with its record (1 alike, 2 not); 3 for a detail not sent or not on record, and for
 * every detail in a state that does not compare (or a number it has no record of).
 */
function approximateCodes(
  countryCode: string,
  entry: ViesRegistryEntry | undefined,
  sent: TraderFields,
): Record<TraderField, MatchCode> {
  const held: TraderFields = { name: entry?.name, ...entry?.trader };
  const code = (field: TraderField): MatchCode => {
    const given = sent[field];
    const registered = held[field];
    if (!APPROX_MATCHING.has(countryCode) || !given?.trim() || registered === undefined) return 3;
    return folded(given) === folded(registered) ? 1 : 2;
  };
  return {
    name: code("name"),
    companyType: code("companyType"),
    street: code("street"),
    postcode: code("postcode"),
    city: code("city"),
  };
}
/** Member states whose invalid answers carry empty name/address instead of `---` (2022 fixtures). */
const EMPTY_WHEN_INVALID = new Set(["CZ", "AT", "RO", "IE"]);
const VIES_COUNTRY_SET = new Set<string>(VIES_COUNTRIES);

const SOAP_HEADERS = { "Content-Type": "text/xml; charset=UTF-8", Server: "Europa" };

type BehaviourSlot = { persistent: ViesBehaviour | null; upcoming: ViesBehaviour[] };

function emptyCalls(): ViesCalls {
  return { total: 0, byDoor: { soap: 0, rest: 0 }, byCountry: {}, log: [], maxInFlight: {}, status: 0 };
}

const REST_HEADERS = { "Content-Type": "application/json", Server: "Europa" };

function json(status: number, value: unknown): Reply {
  return { status, headers: { "Content-Type": "application/json" }, body: jacksonStringify(value) };
}

/** A business fault as VIES sends it: faultcode Server, the code as the whole faultstring. */
function soapFault(fault: string, status = 200, style: "env" | "soap" = "env"): Reply {
  return { status, headers: SOAP_HEADERS, body: faultEnvelope(fault, style, "Server") };
}

/** An error through the REST door: VIES's `CommonResponse`, HTTP 200 unless said otherwise. */
function restFault(error: string, status = 200): Reply {
  return { status, headers: REST_HEADERS, body: jacksonStringify(restError(error)) };
}

/** An error of the back end, in the wire format of the door asked. */
function faultThrough(door: ViesDoor, error: string, status?: number): Reply {
  return door === "soap" ? soapFault(error, status) : restFault(error, status);
}

/** A check as either door received it, in the fake's own terms. */
type CheckCall = {
  countryCode: string;
  vatNumber: string;
  requester: { countryCode: string; vatNumber: string } | null;
  trader: TraderFields;
};

/** What VIES's back end makes of a check, whichever door it came through. */
type Verdict =
  | { kind: "error"; error: string }
  | {
      kind: "answer";
      valid: boolean;
      /** As the register discloses them; `---` (or empty) when not. */
      name: string;
      address: string;
      /** Whether the member state disclosed nothing (DE, ES). */
      masked: boolean;
      requestIdentifier: string;
      codes: Record<TraderField, MatchCode>;
    };

/** Starts the fake on 127.0.0.1 on a free port. Call `stop()` when done. */
export async function startViesFake(options: ViesFakeOptions = {}): Promise<ViesFake> {
  const now = options.now ?? Date.now;
  const initialRegistry = options.registry ?? DEFAULT_VIES_REGISTRY;
  const registry = new Map<string, ViesRegistryEntry>();
  const behaviours = new Map<string, BehaviourSlot>();
  const latency = new Map<string, number>();
  const limits = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const calls = emptyCalls();
  let status: ViesStatusBehaviour = { kind: "json" };

  function setRegistry(entries: Record<string, ViesRegistryEntry>): void {
    registry.clear();
    for (const [key, entry] of Object.entries(entries)) registry.set(key, entry);
  }
  setRegistry(initialRegistry);

  /** Behaviours by door (`soap`, `rest`, or `both`) and prefix: `rest NL`, `both *`. */
  function slot(door: ViesDoor | "both", prefix: string): BehaviourSlot {
    const key = `${door} ${prefix}`;
    const existing = behaviours.get(key);
    if (existing) return existing;
    const created: BehaviourSlot = { persistent: null, upcoming: [] };
    behaviours.set(key, created);
    return created;
  }

  function takeBehaviour(door: ViesDoor, prefix: string): ViesBehaviour | null {
    for (const key of [`${door} ${prefix}`, `both ${prefix}`, `${door} *`, "both *"]) {
      const found = behaviours.get(key);
      const next = found?.upcoming.shift() ?? found?.persistent;
      if (next) return next;
    }
    return null;
  }

  function record(
    door: ViesDoor,
    request: IncomingMessage,
    call: CheckCall | null,
    operation: ViesCall["operation"],
  ): void {
    calls.total += 1;
    calls.byDoor[door] += 1;
    calls.log.push({
      door,
      operation,
      countryCode: call?.countryCode ?? null,
      vatNumber: call?.vatNumber ?? null,
      requester: call?.requester ?? null,
      trader: call?.trader ?? {},
      contentType: request.headers["content-type"] ?? null,
      soapAction: typeof request.headers.soapaction === "string" ? request.headers.soapaction : null,
    });
    if (call) calls.byCountry[call.countryCode] = (calls.byCountry[call.countryCode] ?? 0) + 1;
  }

  /** Tracks the call as in flight until its response is finished or its connection is gone. */
  function enter(prefix: string, response: ServerResponse): number {
    const count = (inFlight.get(prefix) ?? 0) + 1;
    inFlight.set(prefix, count);
    calls.maxInFlight[prefix] = Math.max(calls.maxInFlight[prefix] ?? 0, count);
    response.once("close", () => inFlight.set(prefix, (inFlight.get(prefix) ?? 1) - 1));
    return count;
  }

  /** The back end's answer, the same through both doors: input checks, then the registry. */
  function check(call: CheckCall): Verdict {
    const { countryCode, vatNumber, requester, trader } = call;
    if (!VIES_COUNTRY_SET.has(countryCode) || !VAT_NUMBER_PATTERN.test(vatNumber)) {
      return { kind: "error", error: "INVALID_INPUT" };
    }
    // The requester's number goes without its prefix (R7: `IE6388047V` is refused, `6388047V` taken).
    if (
      requester !== null &&
      (!VIES_COUNTRY_SET.has(requester.countryCode) ||
        !VAT_NUMBER_PATTERN.test(requester.vatNumber) ||
        requester.vatNumber.startsWith(requester.countryCode))
    ) {
      return { kind: "error", error: "INVALID_REQUESTER_INFO" };
    }
    const entry = registry.get(countryCode + vatNumber);
    const valid = entry?.valid ?? false;
    const undisclosed = valid ? "---" : EMPTY_WHEN_INVALID.has(countryCode) ? "" : "---";
    const masked = valid && NON_DISCLOSING.has(countryCode);
    return {
      kind: "answer",
      valid,
      name: masked ? "---" : (entry?.name ?? undisclosed),
      address: masked ? "---" : (entry?.address ?? undisclosed),
      masked,
      requestIdentifier: valid && requester !== null ? newRequestIdentifier() : "",
      codes: approximateCodes(countryCode, valid ? entry : undefined, trader),
    };
  }

  function soapAnswer(call: CheckCall, operation: ViesOperation, verdict: Verdict): Reply {
    if (verdict.kind === "error") return soapFault(verdict.error);
    const traderSent = Object.keys(call.trader).length > 0;
    const { name: sentName, ...echoes } = call.trader;
    const body = answerEnvelope({
      operation,
      countryCode: call.countryCode,
      vatNumber: call.vatNumber,
      requestDate: brusselsRequestDate(now()),
      valid: verdict.valid,
      // A state that discloses nothing hands back the name it was sent (the ES sample).
      name: verdict.masked && traderSent ? (sentName ?? "---") : verdict.name,
      address: verdict.masked && traderSent ? null : verdict.address,
      requestIdentifier: verdict.requestIdentifier,
      echoes,
      ...(traderSent && { codes: verdict.codes }),
    });
    return { status: 200, headers: SOAP_HEADERS, body };
  }

  function restReply(call: CheckCall, verdict: Verdict): Reply {
    if (verdict.kind === "error") return restFault(verdict.error);
    const echo = (field: TraderField) => call.trader[field] ?? (verdict.masked ? null : "---");
    const answer = restAnswer({
      countryCode: call.countryCode,
      vatNumber: call.vatNumber,
      requestDate: new Date(now()).toISOString(),
      valid: verdict.valid,
      requestIdentifier: verdict.requestIdentifier,
      name: verdict.name,
      address: verdict.address,
      echoes: {
        name: echo("name"),
        street: echo("street"),
        postcode: echo("postcode"),
        city: echo("city"),
        companyType: echo("companyType"),
      },
      codes: verdict.codes,
    });
    return { status: 200, headers: REST_HEADERS, body: jacksonStringify(answer) };
  }

  /** Plays a behaviour: a reply to send, or null when the connection was handled (or parked) here. */
  function perform(
    door: ViesDoor,
    behaviour: ViesBehaviour,
    request: IncomingMessage,
    response: ServerResponse,
  ): Reply | null {
    const socket = request.socket;
    switch (behaviour.kind) {
      case "fault":
        return door === "soap"
          ? soapFault(
              behaviour.fault,
              behaviour.status ?? (behaviour.style === "soap" ? 500 : 200),
              behaviour.style,
            )
          : restFault(behaviour.fault, behaviour.status);
      case "html":
        return html(
          behaviour.status,
          behaviour.status === 500 && door === "soap" ? WEBLOGIC_500_PAGE : proxyErrorPage(behaviour.status),
        );
      case "body":
        return {
          status: behaviour.status,
          headers: { "Content-Type": behaviour.contentType },
          body: behaviour.body,
        };
      case "hang":
        server.park(socket);
        return null;
      case "stall":
        response.writeHead(200, door === "soap" ? SOAP_HEADERS : REST_HEADERS);
        response.flushHeaders();
        server.park(socket);
        return null;
      case "reset":
        resetSocket(socket);
        return null;
      case "truncate": {
        const body =
          door === "soap"
            ? faultEnvelope("SERVICE_UNAVAILABLE", "env", "Server")
            : jacksonStringify(restError("SERVICE_UNAVAILABLE"));
        sendTruncated(
          socket,
          door === "soap" ? SOAP_HEADERS["Content-Type"] : REST_HEADERS["Content-Type"],
          body,
        );
        return null;
      }
      case "garbage":
        sendGarbage(socket);
        return null;
    }
  }

  /**
   * What both doors do once a check is read: the member state's concurrency limit, then a
   * behaviour set for it (this door's first), its latency, and the back end's answer.
   */
  async function serve(
    door: ViesDoor,
    call: CheckCall,
    request: IncomingMessage,
    response: ServerResponse,
    render: (verdict: Verdict) => Reply,
  ): Promise<Reply | null> {
    const prefix = call.countryCode;
    const concurrent = enter(prefix, response);
    const limit = limits.get(prefix) ?? limits.get("*");
    if (limit !== undefined && concurrent > limit) return faultThrough(door, "MS_MAX_CONCURRENT_REQ");
    const behaviour = takeBehaviour(door, prefix);
    if (behaviour?.kind === "hang") return perform(door, behaviour, request, response);
    const delay = latency.get(prefix) ?? latency.get("*") ?? 0;
    if (delay > 0) await Bun.sleep(delay);
    if (response.destroyed) return null;
    return behaviour ? perform(door, behaviour, request, response) : render(check(call));
  }

  async function handleSoap(request: IncomingMessage, response: ServerResponse): Promise<Reply | null> {
    const xml = await readBody(request);
    const contentType = request.headers["content-type"] ?? "";
    const soapAction = String(request.headers.soapaction ?? "").replace(/^"|"$/g, "");
    const readable = request.method === "POST" && contentType.startsWith("text/xml");
    const parsed = readable ? parseSoapRequest(xml) : null;
    const soap = parsed !== null && "operation" in parsed ? parsed : null;
    const requesterGiven =
      soap !== null && (soap.requesterCountryCode !== "" || soap.requesterVatNumber !== "");
    const call: CheckCall | null = soap && {
      countryCode: soap.countryCode,
      vatNumber: soap.vatNumber,
      requester: requesterGiven
        ? { countryCode: soap.requesterCountryCode, vatNumber: soap.requesterVatNumber }
        : null,
      trader: soap.trader,
    };
    record("soap", request, call, soap?.operation ?? null);
    if (!readable) return html(500, WEBLOGIC_500_PAGE);
    if (soapAction !== "")
      return soapFault(`The given SOAPAction ${soapAction} does not match an operation.`, 500);
    if (soap === null || call === null) {
      const message =
        parsed !== null && "clientError" in parsed ? parsed.clientError : "Error reading XMLStreamReader.";
      return { status: 500, headers: SOAP_HEADERS, body: faultEnvelope(message, "env", "Client") };
    }
    return serve("soap", call, request, response, (verdict) => soapAnswer(call, soap.operation, verdict));
  }

  async function handleRest(request: IncomingMessage, response: ServerResponse): Promise<Reply | null> {
    const text = await readBody(request);
    const contentType = request.headers["content-type"] ?? "";
    const parsed =
      request.method === "POST" && contentType.startsWith("application/json") ? parseRestRequest(text) : null;
    const { requesterMemberStateCode: requesterCountry = "", requesterNumber = "" } = parsed ?? {};
    const call: CheckCall | null = parsed && {
      countryCode: parsed.countryCode,
      vatNumber: parsed.vatNumber,
      requester:
        requesterCountry !== "" && requesterNumber !== ""
          ? { countryCode: requesterCountry, vatNumber: requesterNumber }
          : null,
      trader: parsed.trader,
    };
    record("rest", request, call, call ? "check-vat-number" : null);
    if (request.method !== "POST")
      return json(405, springError(405, "Method Not Allowed", VIES_REST_CHECK_PATH, now()));
    if (!contentType.startsWith("application/json")) {
      return json(415, springError(415, "Unsupported Media Type", VIES_REST_CHECK_PATH, now()));
    }
    if (call === null) return json(400, springError(400, "Bad Request", VIES_REST_CHECK_PATH, now()));
    // One requester field without the other is refused before the check (R7).
    if ((requesterCountry === "") !== (requesterNumber === "")) return restFault("VOW-ERR-11", 400);
    return serve("rest", call, request, response, (verdict) => restReply(call, verdict));
  }

  function statusReply(request: IncomingMessage): Reply | null {
    calls.status += 1;
    switch (status.kind) {
      case "json": {
        const overrides = status.countries ?? {};
        const codes = [...new Set([...VIES_COUNTRIES, ...Object.keys(overrides)])];
        return json(200, {
          vow: { available: status.vowAvailable ?? true },
          countries: codes.map((countryCode) => ({
            countryCode,
            availability: overrides[countryCode] ?? "Available",
          })),
        });
      }
      case "actionFailed":
        return json(status.status ?? 200, {
          actionSucceed: false,
          errorWrappers: [{ error: status.error ?? "SERVICE_UNAVAILABLE" }],
        });
      case "html":
        return html(status.status, proxyErrorPage(status.status));
      case "body":
        return { status: status.status, headers: { "Content-Type": status.contentType }, body: status.body };
      case "hang":
        server.park(request.socket);
        return null;
    }
  }

  const server = await startRawServer(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://fake").pathname;
    if (path === VIES_SERVICE_PATH) return handleSoap(request, response);
    if (path === VIES_REST_CHECK_PATH) return handleRest(request, response);
    request.resume();
    return path === VIES_STATUS_PATH && request.method === "GET"
      ? statusReply(request)
      : html(404, proxyErrorPage(404));
  });

  return {
    baseUrl: server.baseUrl,
    calls,
    setRegistry,
    addNumber(prefix, number, entry) {
      registry.set(prefix + number, entry);
    },
    setBehaviour(prefix, behaviour, behaviourOptions = {}) {
      const target = slot(behaviourOptions.door ?? "both", prefix);
      if (behaviourOptions.times === undefined) target.persistent = behaviour;
      else for (let i = 0; i < behaviourOptions.times; i += 1) target.upcoming.push(behaviour);
    },
    clearBehaviour(prefix) {
      for (const door of ["soap", "rest", "both"]) behaviours.delete(`${door} ${prefix}`);
    },
    setLatency(value) {
      if (typeof value === "number") {
        latency.clear();
        latency.set("*", value);
      } else {
        for (const [prefix, ms] of Object.entries(value)) latency.set(prefix, ms);
      }
    },
    setConcurrencyLimit(prefix, limit) {
      if (limit === null) limits.delete(prefix);
      else limits.set(prefix, limit);
    },
    setStatus(behaviour) {
      status = behaviour;
    },
    reset() {
      setRegistry(initialRegistry);
      behaviours.clear();
      latency.clear();
      limits.clear();
      status = { kind: "json" };
      server.endParked();
      Object.assign(calls, emptyCalls());
    },
    stop: () => server.stop(),
  };
}
