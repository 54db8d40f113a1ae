import type { Area } from '../kernel/operation';

/** The webhooks area, as the REST reference groups its routes (and the events it delivers). */
export const AREA: Area = {
  tag: 'Webhooks',
  description: 'The event catalogue and the deliveries of its events to webhook endpoints.',
};
