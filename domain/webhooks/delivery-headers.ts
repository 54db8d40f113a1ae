import type { SigningScheme } from './entities';
import { signStandard, signWebhook, standardKey } from './signing';

export type AttemptHeaders = {
  scheme: SigningScheme;
  /** The endpoint's secrets that sign this attempt: the current one first, then one in its overlap. */
  secrets: readonly string[];
  eventId: string;
  eventType: string;
  attempt: number;
  envelope: string;
  /** Signing time, Unix seconds. */
  at: number;
};

/**
 * The headers of one attempt, signed by the endpoint's scheme: `service-signature` (`service`, `both`)
 * and Standard Webhooks' `webhook-id`, `webhook-timestamp`, `webhook-signature` (`standard`, `both`).
 * `webhook-id` is the event id, the same on every attempt and every resend, so a receiver can drop
 * repeats by it. Undefined when the scheme needs Standard Webhooks' key and the current secret has none
 * (a secret from before them, left unrotated): nothing can sign it.
 */
export function attemptHeaders(h: AttemptHeaders): Record<string, string> | undefined {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'service-event-id': h.eventId,
    'service-event-type': h.eventType,
    'service-delivery-attempt': String(h.attempt),
    'user-agent': 'lead-service-webhooks/1',
  };
  if (h.scheme !== 'standard') headers['service-signature'] = signWebhook(h.envelope, h.secrets, h.at);
  if (h.scheme !== 'service') {
    // An older secret without the form (replaced by the rotation that switched the scheme) signs only `service`.
    const keys = h.secrets.map(standardKey);
    if (!keys[0]) return undefined;
    headers['webhook-id'] = h.eventId;
    headers['webhook-timestamp'] = String(h.at);
    headers['webhook-signature'] = signStandard(
      h.eventId,
      h.envelope,
      keys.filter((k) => k !== undefined),
      h.at,
    );
  }
  return headers;
}
