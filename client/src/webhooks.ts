import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { components } from "./openapi.ts";

export { WebhookVerificationError };

/**
 * What the service posts to a `webhook_url`: a batch that ended, or a change a monitor found
 * (`vat.registration_changed`, `vat.details_changed`, `vat.match_changed`); `type` tells which.
 */
export type WebhookEvent = components["schemas"]["BatchEvent"] | components["schemas"]["MonitorEvent"];

/**
 * Checks that a webhook request comes from the service, per Standard Webhooks: its signature
 * (HMAC-SHA256 under your key's `whsec_…` secret, any of the signatures sent) over the id,
 * timestamp and the body exactly as received, and a timestamp within five minutes of now.
 * Returns the event; throws WebhookVerificationError otherwise. Pass the raw body: a body
 * parsed and serialized again no longer matches its signature.
 *
 * Deliveries are retried with the same `webhook-id` until answered 2xx: keep the ids you
 * have handled and ignore repeats.
 */
export function verifyWebhook(
  secret: string,
  rawBody: string,
  headers: Headers | Record<string, string | undefined>,
): WebhookEvent {
  const read = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]) ?? "";
  return new Webhook(secret).verify(rawBody, {
    "webhook-id": read("webhook-id"),
    "webhook-timestamp": read("webhook-timestamp"),
    "webhook-signature": read("webhook-signature"),
  }) as WebhookEvent;
}
