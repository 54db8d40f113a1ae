import type { Area } from '../kernel/operation';

/** The leads area, as the REST reference groups its routes. */
export const AREA: Area = { tag: 'Leads', description: 'Read, create and update leads.' };
