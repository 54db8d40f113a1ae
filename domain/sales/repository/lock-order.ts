import type { Data } from '../../kernel/data';
import { lockLead } from '../../leads';

/**
 * The quote or invoice a call names, row-locked after its lead (the order every writer takes), with the
 * call's data confined to the lead's workspace.
 */
export async function lockedWithLead<T extends { lead_id: string }>(
  data: Data,
  repoOf: (d: Data) => { mustFind(id: string, lock?: boolean): Promise<T> },
  id: string,
) {
  const found = await repoOf(data).mustFind(id);
  const locked = await lockLead(data, found.lead_id);
  return { ...locked, row: await repoOf(locked.data).mustFind(id, true) };
}
