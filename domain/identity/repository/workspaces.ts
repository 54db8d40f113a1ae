import type { Data } from '../../kernel/data';
import type { DeliverabilityLimits } from '../deliverability';
import { WorkspaceEntity, type Workspace } from '../entities';

/** The workspace a call acts in, for the writes and reads that must name it themselves. */
export const workspaceOf = (data: Data): string => {
  if (data.workspaceId === undefined) throw new Error('this needs the workspace the call acts in');
  return data.workspaceId;
};

/** A workspace by id (a workspace is its own scope: the call reaches only its own, or the operator any). */
export const workspaceNamed = (data: Data, id: string): Promise<Workspace | null> =>
  data.workspaceId !== undefined && data.workspaceId !== id
    ? Promise.resolve(null)
    : data.global(WorkspaceEntity).findOne({ id });

/** Workspaces: no workspace owns one, so creating one is the operator's, outside any. */
export const workspacesIn = (data: Data) => ({
  create: (values: Pick<Workspace, 'name' | 'timezone' | 'industry'>): Promise<Workspace> =>
    data.global(WorkspaceEntity).insert({ ...values, status: 'active' }),
  named: (id: string) => workspaceNamed(data, id),
  setInboundEmailSecretHash: async (id: string, hash: string): Promise<void> => {
    await data.global(WorkspaceEntity).set({ id }, { inbound_email_secret_hash: hash });
  },
  setDeliverability: async (id: string, limits: DeliverabilityLimits): Promise<void> => {
    await data.global(WorkspaceEntity).set({ id }, { deliverability: limits });
  },
  setDistinctApprover: async (id: string, distinct: boolean): Promise<void> => {
    await data.global(WorkspaceEntity).set({ id }, { distinct_approver: distinct });
  },
});
