/**
 * The webhooks area: endpoints, signed deliveries through the retry ladder, and the owner's notifications.
 * This file is its public face: nothing outside domain/webhooks/ imports anything but this file.
 *
 * It offers its operations and tables; what the delivery workflow's activities need to make and record
 * an attempt (the ladder's rules, the headers, the target check, the secrets); what the Temporal side
 * needs to start and restart deliveries; and, for now, the deliveries and attempts repositories the activities read.
 */

import { listDeliveries } from './operations/delivery-list';
import { resendDelivery } from './operations/delivery-resend';
import { createEndpoint } from './operations/endpoint-create';
import { listEndpointDeliveries } from './operations/endpoint-deliveries';
import { deleteEndpoint } from './operations/endpoint-delete';
import { disableEndpoint } from './operations/endpoint-disable';
import { enableEndpoint } from './operations/endpoint-enable';
import { listEndpoints } from './operations/endpoint-list';
import { recoverEndpoint } from './operations/endpoint-recover';
import { rotateEndpointSecret } from './operations/endpoint-rotate-secret';
import { testEndpoint } from './operations/endpoint-send-test';
import { setEndpointEvents } from './operations/endpoint-set-events';
import { setEndpointScheme } from './operations/endpoint-set-scheme';
import { listEventTypes } from './operations/event-list-types';
import { listNotifications } from './operations/notification-list';
import { AttemptEntity, DeliveryEntity, EndpointEntity, NotificationEntity } from './entities';

/** The operations this area registers. */
export const operations = {
  createEndpoint,
  rotateEndpointSecret,
  enableEndpoint,
  disableEndpoint,
  deleteEndpoint,
  setEndpointEvents,
  setEndpointScheme,
  listEndpoints,
  testEndpoint,
  listDeliveries,
  listEndpointDeliveries,
  resendDelivery,
  recoverEndpoint,
  listNotifications,
  listEventTypes,
} as const;

/** Its tables. */
export const entities = [EndpointEntity, DeliveryEntity, AttemptEntity, NotificationEntity];

/** Its outbox: deliveries waiting for their workflows (the relay reads it). */
export { outboxes } from './outboxes';

/** How the REST reference groups its routes and the events it delivers. */
export { AREA } from './area';
/** Attempts in one ladder, how long one attempt may take, and how much longer its claim lasts. */
export { ATTEMPTS_PER_LADDER, ATTEMPT_TIMEOUT_MS, CLAIM_MARGIN_MS } from './delivery-rules';
/** What a receiver's answer means: succeeded, retry or give up. */
export { classify } from './delivery-rules';
/** A delivery's state after an attempt: succeeded, retried or exhausted. */
export { outcomeOf } from './delivery-rules';
/** How long a receiver's Retry-After asks to wait, within bounds. */
export { retryAfterMs } from './delivery-rules';
/** The wait before the next attempt: the ladder's, or longer when the receiver asked. */
export { nextWaitMs } from './delivery-rules';
/** A receiver's answer to one POST, as an attempt sees it. */
export type { PostResult } from './delivery-rules';
/** The headers of one attempt: the signatures of every secret that signs it. */
export { attemptHeaders } from './delivery-headers';
/** Records an attempt and its consequences (the delivery's status, the endpoint's failures). */
export { recordAttempt } from './record-attempt';
/** Where an attempt goes: the delivery, its endpoint and its secrets. */
export type { AttemptTarget } from './repository/attempts';
/** An attempt's target, read at its start, and the cancelling of a delivery no longer wanted. */
export { attemptTarget, cancelDelivery } from './attempt-target';
/** An attempt held by one run while it is sent, so a re-run of it sends nothing meanwhile (issue 57). */
export { claimAttempt, releaseAttempt } from './attempt-claim';
/** The background work on deliveries (the reconciler, the purge). */
export { deliveryUpkeep } from './repository/upkeep';
/** Secrets stored encrypted under SECRETS_KEY: sealed, opened, or opened when the key still can. */
export { decryptSecret, encryptSecret, readSecret } from './secrets';
/** Whether a URL is an allowed target: https and public addresses (unless private targets are allowed). */
export { checkTarget } from './url-policy';
/** Starts a delivery's workflow (infra/temporal/ implements it). */
export type { StartDelivery } from './start-delivery';
export { deliveryFanOut } from './fan-out';
