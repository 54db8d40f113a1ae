import type { Data } from '../kernel/data';
import { WorkspaceEntity, type Workspace } from './entities';

/** A workspace by id (a workspace is its own scope: the call reaches only its own, or the operator any). */
export const workspaceNamed = (data: Data, id: string): Promise<Workspace | null> =>
  data.workspaceId !== undefined && data.workspaceId !== id
    ? Promise.resolve(null)
    : data.global(WorkspaceEntity).findOneBy({ id });
