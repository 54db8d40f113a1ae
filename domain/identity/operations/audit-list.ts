import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { pageSize } from '../../kernel/validate';
import { AUDIT_ROWS } from '../views';
import { auditOf } from '../repository/audit';

/** Audit rows of a workspace, newest first, including the real reason for each refusal. */
export const listAudit = defineOperation({
  name: 'audit.list',
  title: 'Read the audit log',
  description:
    'Every request and change in the workspace, allowed or refused, newest first, with the real reason for each refusal; filtered by key, outcome or action when asked.',
  returns: 'Audit rows.',
  requirement: { scope: 'business:read', minRole: 'admin' },
  reach: 'workspace',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({
    limit: describe(pageSize(1000), 'How many rows, 1 to 1000 (default 25).'),
    keyId: describe(yup.string().uuid('key must be a key id (a UUID)'), 'Only the requests of this key.'),
    outcome: describe(
      yup
        .string()
        .oneOf(
          ['allowed', 'refused', 'failed', 'parked'],
          'outcome must be one of allowed, refused, failed, parked',
        ),
      'Only rows with this outcome.',
    ),
    action: describe(
      yup.string().trim().max(200, 'action must be at most 200 characters'),
      'Only rows of this action: an operation (lead.create) or a request (GET /api/v1/leads).',
    ),
  }),
  output: AUDIT_ROWS,
  doors: {
    admin: {
      command: 'audit list',
      flags: (f) => ({ limit: f.limit, keyId: f.key, outcome: f.outcome, action: f.action }),
    },
    console: true,
  },
  summary: (i) => `Read the last ${i.limit} audit rows`,
  run: (ctx, i) => auditOf(ctx.data, i),
});
