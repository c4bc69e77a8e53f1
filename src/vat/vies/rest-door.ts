import { disclosed } from "../disclosed.ts";
import { isRecord, parseJson } from "../json.ts";
import { endpoint, exchange, type FetchLike } from "../transport.ts";
import type { AuthorityMatchCode, TraderDetails, UpstreamCheck } from "../upstream.ts";
import { readMatchCodes } from "./answer.ts";
import { type DoorReply, failed, unanswered, type ViesDoor } from "./door.ts";
import type { ViesRequester } from "./requester.ts";

const CHECK_PATH = "/taxation_customs/vies/rest-api/check-vat-number";

const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json" };

/** The REST name of each trader detail (REST says `traderPostalCode` where SOAP says `traderPostcode`). */
const TRADER_KEYS = {
  name: "traderName",
  street: "traderStreet",
  postcode: "traderPostalCode",
  city: "traderCity",
  companyType: "traderCompanyType",
} as const satisfies Record<keyof TraderDetails, string>;

/**
 * The `CheckVatRequest` body: the number without its prefix, the requester's two fields
 * together or not at all (one alone is refused with `VOW-ERR-11`), and only the trader details
 * that were given.
 */
export function buildRestRequest(
  check: UpstreamCheck,
  requester: ViesRequester | null,
): Record<string, string> {
  const body: Record<string, string> = { countryCode: check.prefix, vatNumber: check.number };
  if (requester !== null) {
    body.requesterMemberStateCode = requester.countryCode;
    body.requesterNumber = requester.vatNumber;
  }
  for (const [field, key] of Object.entries(TRADER_KEYS) as [keyof TraderDetails, string][]) {
    const value = check.trader?.[field];
    if (value !== undefined) body[key] = value;
  }
  return body;
}

/** The contract's `Status` enum. */
const REST_MATCH_CODES: ReadonlyMap<string, AuthorityMatchCode> = new Map([
  ["VALID", "match"],
  ["INVALID", "mismatch"],
  ["NOT_PROCESSED", "not_processed"],
]);

/**
 * The error code of a `CommonResponse` (`actionSucceed: false` or any `errorWrappers`): the
 * first wrapper's `error`, else its `message`; null when the body is no error.
 */
function errorOf(body: Record<string, unknown>): string | null {
  if (body.actionSucceed !== false && body.errorWrappers === undefined) return null;
  const first: unknown = Array.isArray(body.errorWrappers) ? body.errorWrappers[0] : undefined;
  const wrapper = isRecord(first) ? first : {};
  for (const key of ["error", "message"]) {
    const value = wrapper[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return "";
}

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/**
 * Reads a `check-vat-number` reply. Errors are found by their envelope whatever the status
 * (VIES answers them with 200); a verdict needs a 2xx and a boolean `valid`. The registered
 * name and address are `name` and `address`; the `trader*` fields only echo what was sent.
 */
export function readRestReply(status: number, body: string): DoorReply {
  const parsed = parseJson(body);
  const error = isRecord(parsed) ? errorOf(parsed) : null;
  if (error !== null) return { kind: "error", error, httpStatus: status };
  if (status < 200 || status > 299) return failed(`HTTP_${status}`, false, false);
  if (!isRecord(parsed) || typeof parsed.valid !== "boolean") return failed("UNPARSEABLE", false, false);
  const identifier = text(parsed.requestIdentifier)?.trim();
  return {
    kind: "answer",
    answer: {
      kind: "answer",
      valid: parsed.valid,
      name: disclosed(text(parsed.name)),
      address: disclosed(text(parsed.address)),
      requestIdentifier: identifier ? identifier : null,
      traderMatch: readMatchCodes((field) => parsed[`${TRADER_KEYS[field]}Match`], REST_MATCH_CODES),
    },
  };
}

/** The REST door (`POST /rest-api/check-vat-number`), the same checks as the SOAP service. */
export function createRestDoor(baseUrl: string, fetchFn: FetchLike): ViesDoor {
  const url = endpoint(baseUrl, CHECK_PATH);
  return {
    async send(check, requester, deadline) {
      const init = {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify(buildRestRequest(check, requester)),
      };
      const reply = await exchange(fetchFn, url, init, deadline);
      return "failure" in reply ? unanswered(reply) : readRestReply(reply.status, reply.body);
    },
  };
}
