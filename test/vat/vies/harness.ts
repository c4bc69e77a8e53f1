import type { Clock } from "../../../src/kernel/clock.ts";
import type { VatUpstream } from "../../../src/vat/upstream.ts";
import { createViesClient, type ViesProtocol } from "../../../src/vat/vies/client.ts";
import type { ViesFake } from "../../fakes/vies.ts";

/** The instant every client in these tests sees as "now". */
export const NOW = Date.UTC(2024, 6, 1, 9, 30, 0);
export const fixedClock: Clock = { now: () => NOW };

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
