import { describe, expect, test } from "bun:test";
import type { UpstreamFaultCode } from "../../../src/vat/upstream.ts";
import { mapViesFault, UNKNOWN_FAULT } from "../../../src/vat/vies/faults.ts";

const TABLE: [fault: string, code: UpstreamFaultCode, retryable: boolean, alert: boolean][] = [
  ["INVALID_INPUT", "invalid_input", false, false],
  ["INVALID_REQUESTER_INFO", "service_unavailable", false, true],
  ["SERVICE_UNAVAILABLE", "service_unavailable", true, false],
  ["SERVER_BUSY", "service_unavailable", true, false],
  ["MS_UNAVAILABLE", "member_state_unavailable", false, false],
  ["TIMEOUT", "member_state_unavailable", true, false],
  ["GLOBAL_MAX_CONCURRENT_REQ", "upstream_rate_limited", true, false],
  ["GLOBAL_MAX_CONCURRENT_REQ_TIME", "upstream_rate_limited", true, false],
  ["MS_MAX_CONCURRENT_REQ", "upstream_rate_limited", true, false],
  ["MS_MAX_CONCURRENT_REQ_TIME", "upstream_rate_limited", true, false],
  ["VAT_BLOCKED", "service_unavailable", false, true],
  ["IP_BLOCKED", "service_unavailable", false, true],
];

describe("mapViesFault", () => {
  for (const [fault, code, retryable, alert] of TABLE) {
    test(`${fault} → ${code}${retryable ? ", retryable" : ""}${alert ? ", alert" : ""}`, () => {
      expect(mapViesFault(fault)).toEqual({
        fault: { kind: "fault", code, detail: fault, retryable },
        alert,
      });
    });
  }

  test("unknown and client faults: service_unavailable with a bounded detail, alerted", () => {
    for (const fault of [
      "The given SOAPAction checkVat does not match an operation.",
      "NEW_CODE",
      "",
      "toString",
    ]) {
      expect(mapViesFault(fault)).toEqual({
        fault: { kind: "fault", code: "service_unavailable", detail: UNKNOWN_FAULT, retryable: false },
        alert: true,
      });
    }
  });

  test("codes are matched exactly (case and spacing are not guessed)", () => {
    expect(mapViesFault("ms_unavailable").fault.detail).toBe(UNKNOWN_FAULT);
  });
});
