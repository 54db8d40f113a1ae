import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation, flagList as list } from '../../kernel/operation';
import { emailSchema } from '../../kernel/validate';
import { normaliseCidr, parseCidr } from '../ip-allowlist';
import { displayPrefix, fingerprintKey, generateApiKey } from '../keys';
import { API_KEY, MAX_NAME_LENGTH, apiKeyView } from '../views';
import { keysIn } from '../repository/api-keys';
import { ownerIdByEmail } from '../repository/members';
import { MANAGE_KEYS } from '../requirements';
import { scopesField } from '../schemas';

/** Creates a key for a member; the key itself is returned once here and never stored. */
export const createApiKey = defineOperation({
  name: 'key.create',
  title: 'Create an API key',
  description:
    "Creates an API key for a member, with chosen scopes, an expiry and optional IP limits; the key acts with its owner's live role.",
  returns: 'The key record and, this once, the key itself (`key`).',
  requirement: MANAGE_KEYS,
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  input: yup.object({
    ownerEmail: describe(emailSchema.required('owner is required'), 'The member the key belongs to.'),
    name: describe(
      yup.string().trim().required('name is required').max(MAX_NAME_LENGTH),
      'A label to recognise it by.',
    ),
    scopes: scopesField('What the key may do; nothing is granted by default.'),
    expiresInDays: describe(
      yup
        .number()
        .typeError('expires-in-days must be a number')
        .integer('expires-in-days must be a whole number')
        .min(1, 'expires-in-days must be between 1 and 365')
        .max(365, 'expires-in-days must be between 1 and 365')
        .default(90),
      'Days until it expires (default 90).',
    ),
    allowedCidrs: describe(
      yup
        .array(
          yup
            .string()
            .required()
            .test('cidr', '${value} is not an IP address or CIDR', (v) => !!parseCidr(v)),
        )
        .default([]),
      'Addresses or CIDR ranges it may be used from; empty means anywhere.',
    ),
  }),
  output: API_KEY,
  doors: {
    admin: {
      command: 'key create',
      flags: (f) => ({
        ownerEmail: f.owner,
        name: f.name,
        scopes: list(f.scopes),
        expiresInDays: f['expires-in-days'],
        allowedCidrs: list(f['allow-ip']),
      }),
    },
    console: true,
  },
  summary: (i) => `Create the key ${i.name} for ${i.ownerEmail} with ${i.scopes.join(', ')}`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const ownerId = await ownerIdByEmail(ctx.data, i.ownerEmail, 'owner');
    const key = generateApiKey();
    const now = ctx.services.clock?.() ?? new Date();
    const record = await keysIn(ctx.data).create({
      owner_user_id: ownerId,
      name: i.name,
      prefix: displayPrefix(key),
      fingerprint: fingerprintKey(key),
      scopes: [...new Set(i.scopes)],
      allowed_cidrs: [...new Set(i.allowedCidrs.map((c) => normaliseCidr(c)!))],
      expires_at: new Date(now.getTime() + i.expiresInDays * 86_400_000),
    });
    ctx.audit(workspaceId, { key_id: record.id, prefix: record.prefix, scopes: record.scopes });
    return { ...apiKeyView(record, i.ownerEmail), key };
  },
});
