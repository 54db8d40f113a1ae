import type { DataSource } from 'typeorm';
import * as yup from 'yup';
import { operationAudit, writeAudit, type CallContext } from '../audit';
import { ApiKey } from '../entities/api-key';
import { DomainError, notFound } from '../errors';
import { parseCidr } from '../ip-allowlist';
import { displayPrefix, fingerprintKey, generateApiKey } from '../keys';
import { SCOPES, type Scope } from '../policy';
import { emailSchema, validate } from '../validate';
import { apiKeyView } from '../views';

const DAY_MS = 86_400_000;

const createSchema = yup.object({
  workspaceId: yup.string().uuid('workspace must be a UUID').required('workspace is required'),
  ownerEmail: emailSchema.required('owner is required'),
  name: yup.string().trim().required('name is required').max(200),
  scopes: yup
    .array(
      yup
        .mixed<Scope>()
        .oneOf(SCOPES, `each scope must be one of ${SCOPES.join(', ')} (there is no all-access scope)`)
        .required(),
    )
    .min(1, 'scopes must name at least one scope; nothing is granted by default')
    .required('scopes is required'),
  expiresInDays: yup
    .number()
    .typeError('expires-in-days must be a number')
    .integer('expires-in-days must be a whole number')
    .min(1, 'expires-in-days must be between 1 and 365')
    .max(365, 'expires-in-days must be between 1 and 365')
    .default(90),
  allowedCidrs: yup
    .array(
      yup
        .string()
        .required()
        .test('cidr', '${value} is not an IP address or CIDR', (v) => !!parseCidr(v)),
    )
    .default([]),
});

/** Creates a key for a member; the key itself is returned once here and never stored. */
export async function createApiKey(db: DataSource, ctx: CallContext, input: unknown, now = new Date()) {
  const f = validate(createSchema, input);
  const key = generateApiKey();
  return db.transaction(async (m) => {
    const [owner] = await m.query<{ id: string }[]>(
      `SELECT u.id FROM users u JOIN memberships ms ON ms.user_id = u.id
       WHERE ms.workspace_id = $1 AND u.email = $2`,
      [f.workspaceId, f.ownerEmail],
    );
    if (!owner)
      throw new DomainError('not_found', `${f.ownerEmail} is not a member of this workspace.`, {
        field: 'owner',
      });
    const record = await m.save(
      m.create(ApiKey, {
        workspaceId: f.workspaceId,
        ownerUserId: owner.id,
        name: f.name,
        environment: 'live',
        prefix: displayPrefix(key),
        fingerprint: fingerprintKey(key),
        scopes: [...new Set(f.scopes)],
        allowedCidrs: f.allowedCidrs.map((c) => c.trim()),
        expiresAt: new Date(now.getTime() + f.expiresInDays * DAY_MS),
        revokedAt: null,
      }),
    );
    await writeAudit(
      m,
      operationAudit(ctx, 'key.create', f.workspaceId, {
        key_id: record.id,
        prefix: record.prefix,
        scopes: record.scopes,
      }),
    );
    return { ...apiKeyView(record, f.ownerEmail), key };
  });
}

/** Revocation takes effect on the very next request: every request reads the key afresh. */
export async function revokeApiKey(db: DataSource, ctx: CallContext, input: unknown) {
  const { id } = validate(
    yup.object({ id: yup.string().uuid('id must be a UUID').required('id is required') }),
    input,
  );
  return db.transaction(async (m) => {
    const record = await m.findOne(ApiKey, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!record) throw notFound('key');
    if (!record.revokedAt) {
      record.revokedAt = new Date();
      await m.save(record);
      await writeAudit(
        m,
        operationAudit(ctx, 'key.revoke', record.workspaceId, { key_id: id, prefix: record.prefix }),
      );
    }
    return apiKeyView(record);
  });
}

export async function listApiKeys(db: DataSource, input: unknown) {
  const { workspaceId } = validate(
    yup.object({
      workspaceId: yup.string().uuid('workspace must be a UUID').required('workspace is required'),
    }),
    input,
  );
  const rows = await db.getRepository(ApiKey).find({ where: { workspaceId }, order: { createdAt: 'DESC' } });
  return rows.map((k) => apiKeyView(k));
}
