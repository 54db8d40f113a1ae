import type { Area } from '../kernel/operation';

/** The identity area, as the REST reference groups its routes. */
export const AREA: Area = { tag: 'Workspace', description: 'The workspace and the key making the call.' };
