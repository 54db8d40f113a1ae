import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { listSigningKeys } from '../signing-keys';
import { SIGNING_KEYS } from '../views';

export const listOauthKeys = defineOperation({
  name: 'oauth.keys',
  title: "List the authorization server's signing keys",
  description: 'The signing keys by id and date, newest first, and which one is live; never the keys.',
  returns: 'The keys, newest first, and which one is live.',
  requirement: { scope: 'business:read', minRole: 'owner' },
  reach: 'none',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({}),
  output: SIGNING_KEYS,
  doors: { admin: { command: 'oauth keys' } },
  summary: () => "List the authorization server's signing keys",
  run: async (ctx) => {
    const keys = await listSigningKeys(ctx.data);
    return { live: keys.find((k) => k.retired_at === null)?.kid ?? null, keys };
  },
});
