import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { arrayOf } from '../../kernel/shapes';
import { API_KEY, apiKeyView } from '../views';
import { keysIn } from '../repository/api-keys';
import { MANAGE_KEYS } from '../requirements';

export const listApiKeys = defineOperation({
  name: 'key.list',
  title: 'List API keys',
  description: "The workspace's keys, newest first; never the keys themselves.",
  returns: 'Key records.',
  requirement: MANAGE_KEYS,
  reach: 'workspace',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({}),
  output: arrayOf(API_KEY),
  doors: { admin: { command: 'key list' } },
  summary: () => 'List the API keys',
  run: async (ctx) => {
    const rows = await keysIn(ctx.data).list();
    return rows.map((k) => apiKeyView(k));
  },
});
