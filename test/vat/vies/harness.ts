import type { Clock } from "../../../src/kernel/clock.ts";
import type { AuthoritySource } from "../../../src/vat/authorities.ts";
import type { UpstreamVerdict, VatUpstream } from "../../../src/vat/upstream.ts";
import { createViesClient, type ViesProtocol } from "../../../src/vat/vies/client.ts";
import type { ViesFake } from "../../fakes/vies.ts";
import { answerEnvelope } from "../../fakes/vies-wire.ts";

/** The instant every client in these tests sees as "now". */
export const NOW = Date.UTC(2024, 6, 1, 9, 30, 0);
export const fixedClock: Clock = { now: () => NOW };

/** What `source` answers, checked at NOW, for a number it does not register: the verdict others spread. */
export const notRegisteredBy = (source: AuthoritySource): UpstreamVerdict => ({
  kind: "verdict",
  valid: false,
  name: null,
  address: null,
  checkedAt: new Date(NOW).toISOString(),
  consultationNumber: null,
  traderMatch: null,
  source,
});

/** The fake's registered Dutch number (GitHub B.V.), as the clients take it. */
export const GITHUB = { prefix: "NL", number: "854265259B01" };

/** A normal checkVat answer for GITHUB's number, without a fault: a verdict only when sent with HTTP 200. */
export const NORMAL_ANSWER = answerEnvelope({
  operation: "checkVat",
  countryCode: "NL",
  vatNumber: "854265259B01",
  requestDate: "2024-07-01+02:00",
  valid: false,
  name: "---",
  address: "---",
  requestIdentifier: "",
});

export type LoggedEvent = { event: string; fields: Record<string, unknown> };

/** A VIES client pointed at the fake, with its log lines captured; through the SOAP door unless told. */
export function clientFor(
  fake: ViesFake,
  requesterVat: string | null = null,
  clock: Clock = fixedClock,
  protocol: ViesProtocol = "soap",
): { client: VatUpstream; events: LoggedEvent[] } {
  const events: LoggedEvent[] = [];
  const client = createViesClient({
    baseUrl: fake.baseUrl,
    requesterVat,
    protocol,
    clock,
    log: (event, fields) => events.push({ event, fields }),
  });
  return { client, events };
}

/** Generous enough for a loaded CI machine, far below the fake's hang. */
export const TIMEOUT_MS = 5_000;
