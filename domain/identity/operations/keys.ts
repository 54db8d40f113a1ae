import * as yup from 'yup';
import { authorityLost } from '../../kernel/gate';
import { describe } from '../../kernel/json-schema';
import { notFound } from '../../kernel/errors';
import { READ_ONLY, WRITE, defineOperation, flagList as list } from '../../kernel/operation';
import { SCOPES, type Requirement, type Scope } from '../../kernel/permissions';
import { emailSchema } from '../../kernel/validate';
import { normaliseCidr, parseCidr } from '../ip-allowlist';
import { displayPrefix, fingerprintKey, generateApiKey } from '../keys';
import { arrayOf } from '../../kernel/shapes';
import { API_KEY, MAX_NAME_LENGTH, apiKeyView } from '../views';
import { keysIn, ownerIdByEmail } from '../repository';

/** Keys are made in the application's settings (here, the operator door); no key mints keys. */
const MANAGE_KEYS: Requirement = { scope: 'business:write', minRole: 'admin' };
const id = describe(yup.string().uuid('id must be a UUID').required('id is required'), 'The key record id.');

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
    scopes: describe(
      yup
        .array(
          yup
            .mixed<Scope>()
            .oneOf(SCOPES, `each scope must be one of ${SCOPES.join(', ')} (there is no all-access scope)`)
            .required(),
        )
        .min(1, 'scopes must name at least one scope; nothing is granted by default')
        .required('scopes is required'),
      'What the key may do; nothing is granted by default.',
    ),
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
  input: yup.object({ id }),
  output: API_KEY,
  doors: { admin: { command: 'key revoke', flags: (f) => ({ id: f.id }) } },
  summary: (i) => `Revoke the key ${i.id}`,
  run: async (ctx, i) => {
    const keys = keysIn(ctx.data);
    const record = await keys.lock(i.id);
    if (!record) throw notFound('key');
    ctx.audit(record.workspace_id, { key_id: i.id, prefix: record.prefix });
    if (record.revoked_at) return apiKeyView(record);
    const revoked = await keys.revoke(record.id);
    const withdrawn = await authorityLost(ctx, ctx.data.in(record.workspace_id), {
      workspaceId: record.workspace_id,
      keyId: record.id,
      reason: 'requester key revoked',
    });
    ctx.audit(record.workspace_id, { key_id: i.id, prefix: record.prefix, ...withdrawn });
    return apiKeyView(revoked);
  },
});

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
