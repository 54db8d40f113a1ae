import type { Data } from '../../kernel/data';
import { AuditEntity, type AuditRow } from '../../kernel/entities';
import { workspaceOf } from './workspaces';

/**
 * The workspace's audit rows, newest first. Through the table's own repository with the workspace
 * named here: audit_log.workspace_id is nullable (a refusal may know no workspace), which a scoped
 * repository's rows may not be.
 */
export const auditOf = (data: Data, limit: number): Promise<AuditRow[]> =>
  data.global(AuditEntity).find({ workspace_id: workspaceOf(data) }, { order: { id: 'DESC' }, take: limit });
