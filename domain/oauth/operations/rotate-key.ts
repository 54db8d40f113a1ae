import * as yup from 'yup';
import { WRITE, defineOperation } from '../../kernel/operation';
import { rotateSigningKeys } from '../signing-keys';
import { SIGNING_KEYS } from '../views';

/**
 * A new signing key for the authorization server; the others are retired, still published for a day so
 * what they signed still verifies. Each API process signs with it from its next start (restart them in
 * turn).
 */
export const rotateSigningKey = defineOperation({
  name: 'oauth.rotate_key',
  title: "Rotate the authorization server's signing key",
  description:
    'Makes a new signing key (sealed with SECRETS_KEY) and retires the others, which stay published for a day. API processes sign with it from their next start.',
  returns: 'The keys, newest first, and which one is live.',
  requirement: { scope: 'business:write', minRole: 'owner' },
  reach: 'none',
  operatorOnly: true,
  ...WRITE,
  input: yup.object({}),
  output: SIGNING_KEYS,
  doors: { admin: { command: 'oauth rotate-key' } },
  summary: () => "Rotate the authorization server's signing key",
  run: async (ctx) => {
    const rotated = await rotateSigningKeys(ctx.data, ctx.services.secretsKey);
    ctx.audit(null, { live: rotated.live });
    return rotated;
  },
});
