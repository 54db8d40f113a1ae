import * as yup from 'yup';
import { revokeCredential } from '../credentials';
import { notFound } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { API_KEY, apiKeyView } from '../views';
import { keysIn } from '../repository/api-keys';
import { MANAGE_KEYS } from '../requirements';
import { keyIdField } from '../schemas';

/**
 * Revocation takes effect on the very next request (every request reads the key afresh), and what the
 * key parked for approval is withdrawn in the same transaction: it never runs on a revoked key's word.
 */
export const revokeApiKey = defineOperation({
  name: 'key.revoke',
  title: 'Revoke an API key',
  description:
    'Revokes a key: its next request is refused, and every approval request it parked that is still waiting is withdrawn (CANCELLED, reason "requester key revoked").',
  returns: 'The key record, with revoked_at.',
  requirement: MANAGE_KEYS,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  destructive: true,
  idempotent: true,
  input: yup.object({ id: keyIdField }),
  output: API_KEY,
  doors: { admin: { command: 'key revoke', flags: (f) => ({ id: f.id }) }, console: true },
  summary: (i) => `Revoke the key ${i.id}`,
  run: async (ctx, i) => {
    const keys = keysIn(ctx.data);
    const record = await keys.lockKey(i.id);
    if (!record) throw notFound('key');
    ctx.audit(record.workspace_id, { key_id: i.id, prefix: record.prefix });
    const ended = await revokeCredential(ctx, ctx.data, record.id, 'requester key revoked');
    ctx.audit(record.workspace_id, { key_id: i.id, prefix: record.prefix, ...ended?.withdrawn });
    return apiKeyView((await keys.lock(record.id))!);
  },
});
