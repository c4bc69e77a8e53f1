import { type Billing, expireReservations } from "./billing-rows.ts";
import type { FaultRig } from "./fault-rig.ts";

/**
 * Releases the reservations a fault left behind (requests that reserved a unit and could
 * not settle it): ends their lease, then sends one request at a time — the meter sweeps
 * expired leases every 10 s while it is used — until none is held. Returns how many were
 * stranded and the billing afterwards.
 */
export async function sweepStranded(
  rig: FaultRig,
  timeoutMs = 15_000,
): Promise<{ stranded: number; after: Billing }> {
  const stranded = await expireReservations(rig.postgres.sql, rig.keyIds);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const after = await rig.billing();
    if (after.reservations === 0 || Date.now() > deadline) return { stranded, after };
    await fetch(`${rig.service.url}/validate`, {
      method: "POST",
      headers: { "x-api-key": rig.secrets[0] ?? "", "content-type": "application/json" },
      body: JSON.stringify({ iban: "XX00" }),
    });
    await Bun.sleep(250);
  }
}
