import { describe, expect, test } from "bun:test";
import type {
  UpstreamCheck,
  UpstreamFault,
  UpstreamOutcome,
  UpstreamPath,
} from "../../../src/vat/upstream.ts";
import { startViesFake, VIES_FAULT_STRINGS, type ViesBehaviour, type ViesFake } from "../../fakes/vies.ts";
import { fakeForTests } from "../../support/fake-lifecycle.ts";
import { clientFor, GITHUB, NOW, TIMEOUT_MS } from "./harness.ts";

/**
 * Both doors lead to the same checks: for the same answer of VIES's back end (the fake serves
 * both from one state), the SOAP and the REST client give the same outcome, the door aside.
 */
const fake = fakeForTests(startViesFake);

const checkedAt = new Date(NOW).toISOString();
const DOORS: UpstreamPath[] = ["soap", "rest"];

type Scenario = {
  name: string;
  check: UpstreamCheck;
  /** The outcome but for its `path`. */
  expected: UpstreamOutcome;
  setup?: (fake: ViesFake) => void;
  requesterVat?: string;
  timeoutMs?: number;
};

const verdict = (fields: Partial<UpstreamOutcome & { kind: "verdict" }>) => ({
  kind: "verdict" as const,
  valid: true,
  name: null,
  address: null,
  checkedAt,
  consultationNumber: null,
  traderMatch: null,
  source: "vies" as const,
  ...fields,
});

const fault = (code: UpstreamFault["code"], detail: string, retryable: boolean) => ({
  kind: "fault" as const,
  code,
  detail,
  retryable,
});

const behaving = (prefix: string, behaviour: ViesBehaviour, times?: number) => (f: ViesFake) =>
  f.setBehaviour(prefix, behaviour, times === undefined ? {} : { times });

const SCENARIOS: Scenario[] = [
  {
    name: "a registered number with its multi-line address",
    check: GITHUB,
    expected: verdict({ name: "GITHUB B.V.", address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM" }),
  },
  { name: "DE discloses nothing", check: { prefix: "DE", number: "811569869" }, expected: verdict({}) },
  {
    name: "not registered",
    check: { prefix: "NL", number: "9999999" },
    expected: verdict({ valid: false }),
  },
  {
    name: "not registered, with the empty name and address of CZ",
    check: { prefix: "CZ", number: "12345678" },
    expected: verdict({ valid: false }),
  },
  {
    name: "a leading zero, ampersands and CRLF addresses",
    check: { prefix: "BE", number: "0123456789" },
    setup: (f) =>
      f.addNumber("BE", "0123456789", {
        valid: true,
        name: "A & B <SRL>",
        address: "\r\nRUE 1  \r\n\r\n1000 BXL\r\n",
      }),
    expected: verdict({ name: "A & B <SRL>", address: "RUE 1\n1000 BXL" }),
  },
  {
    name: "Spain's own comparison of the details sent",
    check: { prefix: "ES", number: "B83891812", trader: { name: "Rodrisa Automóviles", city: "Madrid" } },
    expected: verdict({ traderMatch: { name: "match", city: "mismatch" } }),
  },
  {
    name: "a state that does not compare",
    check: { ...GITHUB, trader: { street: "Vijzelstraat 68" } },
    expected: verdict({
      name: "GITHUB B.V.",
      address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM",
      traderMatch: { street: "not_processed" },
    }),
  },
  {
    name: "a refused requester: the check again without it",
    check: GITHUB,
    requesterVat: "IE6388047V",
    setup: behaving("NL", { kind: "fault", fault: "INVALID_REQUESTER_INFO" }, 1),
    expected: verdict({ name: "GITHUB B.V.", address: "VIJZELSTRAAT 00068\n1017HL AMSTERDAM" }),
  },
  {
    name: "GB is not in VIES",
    check: { prefix: "GB", number: "980780684" },
    expected: fault("invalid_input", "INVALID_INPUT", false),
  },
  ...VIES_FAULT_STRINGS.filter((code) => code !== "INVALID_INPUT").map(
    (code): Scenario => ({
      name: `the error ${code}`,
      check: GITHUB,
      setup: behaving("NL", { kind: "fault", fault: code }),
      expected: {
        ...fault("service_unavailable", code, false),
        ...{
          INVALID_REQUESTER_INFO: {},
          SERVICE_UNAVAILABLE: { retryable: true },
          SERVER_BUSY: { retryable: true },
          MS_UNAVAILABLE: { code: "member_state_unavailable" as const },
          TIMEOUT: { code: "member_state_unavailable" as const, retryable: true },
          VAT_BLOCKED: {},
          IP_BLOCKED: {},
          GLOBAL_MAX_CONCURRENT_REQ: { code: "upstream_rate_limited" as const, retryable: true },
          GLOBAL_MAX_CONCURRENT_REQ_TIME: { code: "upstream_rate_limited" as const, retryable: true },
          MS_MAX_CONCURRENT_REQ: { code: "upstream_rate_limited" as const, retryable: true },
          MS_MAX_CONCURRENT_REQ_TIME: { code: "upstream_rate_limited" as const, retryable: true },
        }[code],
      },
    }),
  ),
  {
    name: "an error with HTTP 500",
    check: GITHUB,
    setup: behaving("NL", { kind: "fault", fault: "MS_UNAVAILABLE", status: 500 }),
    expected: fault("member_state_unavailable", "MS_UNAVAILABLE", false),
  },
  {
    name: "an error code nobody knows",
    check: GITHUB,
    setup: behaving("NL", { kind: "fault", fault: "SOMETHING_NEW" }),
    expected: fault("service_unavailable", "UNKNOWN_FAULT", false),
  },
  ...([500, 502, 503, 504] as const).map(
    (status): Scenario => ({
      name: `an HTML ${status} page`,
      check: GITHUB,
      setup: behaving("NL", { kind: "html", status }),
      expected: fault("service_unavailable", `HTTP_${status}`, false),
    }),
  ),
  {
    name: "an HTML page with HTTP 200",
    check: GITHUB,
    setup: behaving("NL", {
      kind: "body",
      status: 200,
      contentType: "text/html",
      body: "<html>maintenance</html>",
    }),
    expected: fault("service_unavailable", "UNPARSEABLE", false),
  },
  ...(["reset", "truncate", "garbage"] as const).map(
    (kind): Scenario => ({
      name: `a connection that ends in ${kind}`,
      check: GITHUB,
      setup: behaving("NL", { kind }),
      expected: fault("service_unavailable", "NETWORK", true),
    }),
  ),
  {
    name: "a member state that never answers",
    check: GITHUB,
    setup: behaving("NL", { kind: "hang" }),
    timeoutMs: 200,
    expected: fault("member_state_unavailable", "CLIENT_TIMEOUT", true),
  },
];

describe("the same outcome through either door", () => {
  for (const scenario of SCENARIOS) {
    test(scenario.name, async () => {
      const outcomes: UpstreamOutcome[] = [];
      for (const door of DOORS) {
        fake().reset();
        scenario.setup?.(fake());
        const { client } = clientFor(fake(), scenario.requesterVat ?? null, undefined, door);
        outcomes.push(await client.check(scenario.check, { timeoutMs: scenario.timeoutMs ?? TIMEOUT_MS }));
        expect(fake().calls.byDoor[door === "soap" ? "rest" : "soap"]).toBe(0);
      }
      expect(outcomes).toEqual(DOORS.map((path): UpstreamOutcome => ({ ...scenario.expected, path })));
    });
  }

  test("a consultation number through either door", async () => {
    for (const door of DOORS) {
      const { client } = clientFor(fake(), "DE136695976", undefined, door);
      const outcome = await client.check(GITHUB, { timeoutMs: TIMEOUT_MS });
      expect(outcome).toMatchObject({
        kind: "verdict",
        path: door,
        consultationNumber: expect.stringMatching(/^WAPI/),
      });
    }
    expect(fake().calls.log.map(({ door, requester }) => ({ door, requester }))).toEqual(
      DOORS.map((door) => ({ door, requester: { countryCode: "DE", vatNumber: "136695976" } })),
    );
  });
});
