import type { Data } from '../../kernel/data';
import { AuditEntity, type AuditRow } from '../../kernel/entities';
import { workspaceOf } from './workspaces';

/** Which rows a reader asks for: the newest `limit`, of one key, one outcome or one action when named. */
export type AuditFilter = { limit: number; keyId?: string; outcome?: string; action?: string };

/**
 * The workspace's audit rows, newest first. Through the table's own repository with the workspace
 * named here: audit_log.workspace_id is nullable (a refusal may know no workspace), which a scoped
 * repository's rows may not be.
 */
export const auditOf = (data: Data, f: AuditFilter): Promise<AuditRow[]> =>
  data.global(AuditEntity).find(
    {
      workspace_id: workspaceOf(data),
      ...(f.keyId && { key_id: f.keyId.toLowerCase() }),
      ...(f.outcome && { outcome: f.outcome as AuditRow['outcome'] }),
      ...(f.action && { action: f.action }),
    },
    { order: { id: 'DESC' }, take: f.limit },
  );
