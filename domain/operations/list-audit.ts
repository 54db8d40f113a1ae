import type { DataSource } from 'typeorm';
import * as yup from 'yup';
import { validate } from '../validate';

const schema = yup.object({
  workspaceId: yup.string().uuid('workspace must be a UUID').required('workspace is required'),
  limit: yup
    .number()
    .typeError('limit must be a number')
    .integer('limit must be a whole number')
    .min(1, 'limit must be between 1 and 1000')
    .max(1000, 'limit must be between 1 and 1000')
    .default(50),
});

/** Audit rows of a workspace, newest first, including the real reason for each refusal. */
export async function listAudit(db: DataSource, input: unknown) {
  const { workspaceId, limit } = validate(schema, input);
  return await db.query<Record<string, unknown>[]>(
    `SELECT id::text, at, door, action, outcome, reason, status, workspace_id, key_id, key_prefix,
            actor_user_id, request_id, client_ip, details
       FROM audit_log WHERE workspace_id = $1 ORDER BY id DESC LIMIT $2`,
    [workspaceId, limit],
  );
}
