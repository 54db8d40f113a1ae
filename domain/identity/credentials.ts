import { randomBytes } from 'node:crypto';
import { authorityLost } from '../kernel/gate';
import type { Data } from '../kernel/data';
import type { OperationContext } from '../kernel/operation';
import type { Scope } from '../kernel/permissions';
import { keysIn } from './repository/api-keys';

/**
 * An assistant connection's credential: a row beside the workspace's keys (kind `assistant`), so every
 * check that reads a key's authority reads it the same way (the member's live role, its scopes, its
 * revocation, what it parked). Its fingerprint is random and no secret is ever made for it: it cannot
 * be presented as a key, only reached through the access tokens the authorization server issued for it.
 */
export async function issueAssistantCredential(
  data: Data,
  c: { memberId: string; clientName: string; clientHost: string; scopes: Scope[]; expiresAt: Date },
): Promise<string> {
  const row = await keysIn(data).create({
    owner_user_id: c.memberId,
    name: c.clientName,
    prefix: c.clientHost,
    fingerprint: randomBytes(32),
    scopes: c.scopes,
    allowed_cidrs: [],
    expires_at: c.expiresAt,
    kind: 'assistant',
  });
  return row.id;
}

/**
 * Ends a credential (a key, an assistant connection) at once: its next request is refused, and what it
 * parked for approval that still waits is withdrawn in the same transaction. Undefined when the
 * workspace has no such credential; `revoked: false` when it already was.
 */
export async function revokeCredential(
  ctx: Pick<OperationContext, 'services' | 'afterCommit'>,
  data: Data,
  keyId: string,
  reason: string,
): Promise<{ revoked: boolean; withdrawn: Record<string, unknown> } | undefined> {
  const keys = keysIn(data);
  const record = await keys.lock(keyId);
  if (!record) return undefined;
  if (record.revoked_at) return { revoked: false, withdrawn: {} };
  await keys.revoke(record.id);
  const withdrawn = await authorityLost(ctx, data.in(record.workspace_id), {
    workspaceId: record.workspace_id,
    keyId: record.id,
    reason,
  });
  return { revoked: true, withdrawn };
}
