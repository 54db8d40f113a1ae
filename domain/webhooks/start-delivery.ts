import type { Delivery } from './entities';

/** What starting a delivery's workflow needs to know of it. */
export type DeliveryToStart = Pick<
  Delivery,
  'id' | 'generation' | 'attempts' | 'event_id' | 'event_type' | 'endpoint_id' | 'workspace_id'
> & {
  /** The endpoint's URL, read for its host: the run's summary in the Web UI names it. */
  endpoint_url: string;
  /** The event's trace (its outbox row's), which the relay's start continues; absent for a restart. */
  traceparent?: string | null;
};

/**
 * Starts a delivery's workflow (infra/temporal/webhooks.ts implements it on the Temporal client): the
 * relay starts new deliveries, the reconciler restarts lost ones.
 */
export type StartDelivery = (
  d: DeliveryToStart,
  /** A restart (the reconciler) replaces a closed run and continues the ladder at this rung. */
  restart?: { rung: number },
) => Promise<void>;
