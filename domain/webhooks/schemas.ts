import * as yup from 'yup';
import { EVENT_TYPES } from '../kernel/event-catalogue';
import { describe } from '../kernel/json-schema';
import { pageSize } from '../kernel/validate';
import { DELIVERY_STATUSES, SIGNING_SCHEMES } from './entities';

/** The event types an endpoint receives, or `*`. */
export const eventsField = describe(
  yup
    .array(
      yup
        .string()
        .required()
        .oneOf(
          ['*', ...EVENT_TYPES],
          (p: { value: unknown }) => `${String(p.value)} is not an event type (see the catalogue, or use *)`,
        ),
    )
    .min(1, 'events must name at least one event type, or *')
    .required('events is required (comma-separated event types, or *)'),
  'The event types it receives, or * for all.',
);

/** The endpoint an operation acts on. */
export const endpointIdField = describe(
  yup.string().uuid('id must be a UUID').required('id is required'),
  'The endpoint id.',
);

/** The signature headers an endpoint's deliveries carry. */
export const schemeField = describe(
  yup
    .string()
    .oneOf(SIGNING_SCHEMES, `scheme must be one of ${SIGNING_SCHEMES.join(', ')}`)
    .optional(),
  'The signature headers its deliveries carry: service (service-signature), standard (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature) or both.',
);

/** Why an endpoint is switched off, for its owner. */
export const switchOffReasonField = describe(yup.string().max(500).optional(), 'Why, for its owner.');

/** `delivery.list` (GET /events): JSON types; the REST door reads its query string into them. */
export const deliveryParamsSchema = yup
  .object({
    type: describe(
      yup
        .string()
        .max(100, 'type must be at most 100 characters')
        .matches(/^[a-z_]+(\.[a-z_]+)+$/, 'type must be an event type, for example lead.created'),
      'Only deliveries of this event type, for example lead.created.',
    ),
    status: describe(
      yup.string().oneOf([...DELIVERY_STATUSES], `status must be one of ${DELIVERY_STATUSES.join(', ')}`),
      'PENDING (queued), FAILED (retrying), SUCCEEDED, EXHAUSTED (gave up) or CANCELLED.',
    ),
    limit: describe(pageSize(100), 'How many, 1 to 100 (default 25).'),
  })
  .strict(true)
  .noUnknown(true, (p: { unknown: string }) => `${p.unknown} is not a parameter of this list`);
