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
    'Every request and change in the workspace, allowed or refused, newest first, with the real reason for each refusal.',
  returns: 'Audit rows.',
  requirement: { scope: 'business:read', minRole: 'admin' },
  reach: 'workspace',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({
    limit: describe(pageSize(1000), 'How many rows, 1 to 1000 (default 25).'),
  }),
  output: AUDIT_ROWS,
  doors: { admin: { command: 'audit list', flags: (f) => ({ limit: f.limit }) } },
  summary: (i) => `Read the last ${i.limit} audit rows`,
  run: (ctx, i) => auditOf(ctx.data, i.limit),
});
