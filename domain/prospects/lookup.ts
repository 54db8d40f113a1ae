import { notFound } from '../kernel/errors';
import type { OperationContext } from '../kernel/operation';
import type { Prospect } from './entities';
import { prospectsIn } from './repository/prospects';
import { prospectView } from './views';

/** A prospect of this workspace, held until the transaction ends, or "not found". */
export async function heldProspect(ctx: OperationContext, id: string): Promise<Prospect> {
  const p = await prospectsIn(ctx.data).lock(id);
  if (!p) throw notFound('prospect');
  return p;
}

/** A prospect as the operations show it, with its list's name. */
export const withList = async (ctx: OperationContext, p: Prospect) =>
  prospectView(p, (await prospectsIn(ctx.data.in(p.workspace_id)).listById(p.list_id))?.name);
