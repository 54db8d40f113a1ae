import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { arrayOf } from '../../kernel/shapes';
import { API_KEY, apiKeyView } from '../views';
import { keysIn } from '../repository/api-keys';
import { MANAGE_KEYS } from '../requirements';

export const listApiKeys = defineOperation({
  name: 'key.list',
  title: 'List API keys',
  description:
    "The workspace's keys, newest first, each with its owner's email and when it was last used; never the keys themselves.",
  returns: 'Key records.',
  requirement: MANAGE_KEYS,
  reach: 'workspace',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({}),
  output: arrayOf(API_KEY),
  doors: { admin: { command: 'key list' }, console: true },
  summary: () => 'List the API keys',
  run: async (ctx) => {
    const keys = keysIn(ctx.data);
    const [rows, usage] = await Promise.all([keys.list(), keys.usage()]);
    const of = new Map(usage.map((u) => [u.id, u]));
    return rows.map((k) => apiKeyView(k, of.get(k.id)?.owner_email, of.get(k.id)?.last_used_at ?? null));
  },
});
