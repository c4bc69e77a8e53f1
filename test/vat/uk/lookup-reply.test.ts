import { describe, expect, test } from "bun:test";
import { formatAddress, readLookupReply } from "../../../src/vat/uk/lookup-reply.ts";

const AT = "2025-03-01T10:00:00.000Z";
const plain = { requesterSent: false, checkedAt: AT };
const verified = { requesterSent: true, checkedAt: AT };

const reply = (status: number, body: unknown) => ({
  status,
  body: typeof body === "string" ? body : JSON.stringify(body),
});

const found = {
  target: {
    name: "Credite Sberger Donal Inc.",
    vatNumber: "553557881",
    address: { line1: "131B Barton Hamlet", postcode: "SW97 5CK", countryCode: "GB" },
  },
  processingDate: "2019-01-31T12:43:17+00:00",
};

describe("200: registered", () => {
  test("becomes a valid verdict from uk_authority, dated by our clock", () => {
    expect(readLookupReply(reply(200, found), plain)).toEqual({
      kind: "answered",
      outcome: {
        kind: "verdict",
        valid: true,
        name: "Credite Sberger Donal Inc.",
        address: "131B Barton Hamlet\nSW97 5CK",
        checkedAt: AT,
        consultationNumber: null,
        traderMatch: null,
        source: "uk_authority",
      },
    });
  });

  test("carries the consultation number only when we sent a requester", () => {
    const withReference = { ...found, requester: "146295999727", consultationNumber: "ypAeKRPlW" };
    const read = (context: typeof plain) => {
      const reading = readLookupReply(reply(200, withReference), context);
      return reading.kind === "answered" && reading.outcome.kind === "verdict"
        ? reading.outcome.consultationNumber
        : "?";
    };
    expect(read(verified)).toBe("ypAeKRPlW");
    expect(read(plain)).toBeNull();
  });

  test("an empty or missing name is null", () => {
    for (const name of ["", "   ", undefined]) {
      const reading = readLookupReply(reply(200, { ...found, target: { ...found.target, name } }), plain);
      expect(
        reading.kind === "answered" && reading.outcome.kind === "verdict" && reading.outcome.name,
      ).toBeNull();
    }
  });

  test("a body without a target, or not JSON at all, is UNPARSEABLE rather than a verdict", () => {
    for (const body of ["<html>portal</html>", "", "[]", { processingDate: "2019-01-31T12:43:17+00:00" }]) {
      expect(readLookupReply(reply(200, body), plain)).toEqual({
        kind: "answered",
        outcome: { kind: "fault", code: "service_unavailable", detail: "UNPARSEABLE", retryable: false },
      });
    }
  });
});

describe("address", () => {
  test("joins lines 1 to 5 then the postcode, one per line, skipping empty ones", () => {
    expect(
      formatAddress({
        line1: " HM REVENUE AND CUSTOMS ",
        line2: "RUBY HOUSE",
        line3: "",
        line4: "8 RUBY PLACE",
        line5: "ABERDEEN",
        postcode: "AB10 1ZP",
        countryCode: "GB",
      }),
    ).toBe("HM REVENUE AND CUSTOMS\nRUBY HOUSE\n8 RUBY PLACE\nABERDEEN\nAB10 1ZP");
  });

  test("adds a country code other than GB as the last line", () => {
    expect(formatAddress({ line1: "1 Rue de la Paix", postcode: "75002", countryCode: "FR" })).toBe(
      "1 Rue de la Paix\n75002\nFR",
    );
  });

  test("is null when nothing is disclosed", () => {
    expect(formatAddress(undefined)).toBeNull();
    expect(formatAddress({ countryCode: "GB" })).toBeNull();
    expect(formatAddress({ line1: 42, postcode: null })).toBeNull();
  });
});

describe("404", () => {
  test("HMRC's NOT_FOUND for the target is a definitive valid: false", () => {
    expect(
      readLookupReply(
        reply(404, { code: "NOT_FOUND", message: "targetVrn does not match a registered company" }),
        verified,
      ),
    ).toEqual({
      kind: "answered",
      outcome: {
        kind: "verdict",
        valid: false,
        name: null,
        address: null,
        checkedAt: AT,
        consultationNumber: null,
        traderMatch: null,
        source: "uk_authority",
      },
    });
  });

  test("the platform's routing 404s never read as 'not registered'", () => {
    const bodies = [
      { code: "NOT_FOUND", message: "The requested resource could not be found." },
      {
        code: "MATCHING_RESOURCE_NOT_FOUND",
        message: "A resource with the name in the request can not be found in the API",
      },
      "<html>Not Found</html>",
    ];
    for (const body of bodies) {
      const reading = readLookupReply(reply(404, body), plain);
      expect(reading.kind).toBe("misconfigured");
      expect(reading.kind === "misconfigured" && reading.fault.code).toBe("service_unavailable");
    }
  });
});

describe("400", () => {
  test("an invalid target is invalid_input", () => {
    const body = {
      code: "INVALID_REQUEST",
      message: "Invalid targetVrn - Vrn parameters should be 9 or 12 digits",
    };
    expect(readLookupReply(reply(400, body), plain)).toEqual({
      kind: "answered",
      outcome: { kind: "fault", code: "invalid_input", detail: "HTTP_400_INVALID_REQUEST", retryable: false },
    });
  });

  test("an invalid requester is our configuration, not the caller's input", () => {
    for (const message of [
      "Invalid requesterVrn - Vrn parameters should be 9 or 12 digits",
      "Invalid targetVrn and requesterVrn - Vrn parameters should be 9 or 12 digits",
    ]) {
      const reading = readLookupReply(reply(400, { code: "INVALID_REQUEST", message }), verified);
      expect(reading.kind).toBe("misconfigured");
      expect(reading.kind === "misconfigured" && reading.alarm).toContain("requester VRN");
    }
  });

  test("a 400 without HMRC's code (a proxy's page) is service_unavailable", () => {
    const reading = readLookupReply(reply(400, "<html>Bad Request</html>"), plain);
    expect(reading).toEqual({
      kind: "answered",
      outcome: { kind: "fault", code: "service_unavailable", detail: "HTTP_400", retryable: false },
    });
  });
});

describe("401, 403, 406", () => {
  test("401 asks for a fresh token", () => {
    const body = { code: "INVALID_CREDENTIALS", message: "Invalid Authentication information provided" };
    expect(readLookupReply(reply(401, body), plain)).toEqual({
      kind: "token_refused",
      detail: "HTTP_401_INVALID_CREDENTIALS",
    });
  });

  test("403 and 406 are configuration faults with an alarm quoting HMRC", () => {
    const cases = [
      [
        403,
        "INVALID_SCOPE",
        "Cannot access the required resource. Ensure this token has all the required scopes.",
      ],
      [
        403,
        "RESOURCE_FORBIDDEN",
        "The application is not subscribed to the API which it is attempting to invoke",
      ],
      [403, "INVALID_REQUEST", "requesterVrn does not match a registered company"],
      [406, "ACCEPT_HEADER_INVALID", "The accept header is missing or invalid"],
    ] as const;
    for (const [status, code, message] of cases) {
      const reading = readLookupReply(reply(status, { code, message }), verified);
      expect(reading).toEqual({
        kind: "misconfigured",
        fault: {
          kind: "fault",
          code: "service_unavailable",
          detail: `HTTP_${status}_${code}`,
          retryable: false,
        },
        alarm: expect.stringContaining(message),
      });
    }
  });
});

describe("throttling and server errors", () => {
  test("429 is upstream_rate_limited and retryable", () => {
    const body = {
      code: "MESSAGE_THROTTLED_OUT",
      message: "The request for the API is throttled as you have exceeded your quota.",
    };
    expect(readLookupReply(reply(429, body), plain)).toEqual({
      kind: "answered",
      outcome: {
        kind: "fault",
        code: "upstream_rate_limited",
        detail: "HTTP_429_MESSAGE_THROTTLED_OUT",
        retryable: true,
      },
    });
  });

  test("5xx is service_unavailable; only the edge's 502/503/504 are retryable", () => {
    const cases = [
      [
        500,
        { code: "INTERNAL_SERVER_ERROR", message: "Unknown error" },
        "HTTP_500_INTERNAL_SERVER_ERROR",
        false,
      ],
      [502, "<html>Bad Gateway</html>", "HTTP_502", true],
      [503, { code: "SERVER_ERROR", message: "Service unavailable" }, "HTTP_503_SERVER_ERROR", true],
      [504, { code: "GATEWAY_TIMEOUT", message: "Gateway timeout" }, "HTTP_504_GATEWAY_TIMEOUT", true],
    ] as const;
    for (const [status, body, detail, retryable] of cases) {
      expect(readLookupReply(reply(status, body), plain)).toEqual({
        kind: "answered",
        outcome: { kind: "fault", code: "service_unavailable", detail, retryable },
      });
    }
  });

  test("a code that is not a plain identifier stays out of the detail", () => {
    const reading = readLookupReply(reply(500, { code: "evil code\nwith newline", message: "x" }), plain);
    expect(reading.kind === "answered" && reading.outcome.kind === "fault" && reading.outcome.detail).toBe(
      "HTTP_500",
    );
  });
});
