import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Data } from '../kernel/data';
import { WorkspaceEntity } from './entities';
import { fingerprintKey, sameFingerprint } from './keys';

const PREFIX = 'iem_';

/** A new secret for a workspace's inbound-email route: shown once, stored as its SHA-256. */
export const newInboundEmailSecret = () => PREFIX + randomBytes(24).toString('base64url');

export const inboundEmailSecretHash = (secret: string) => fingerprintKey(secret).toString('hex');

/**
 * Whether a presented secret is the workspace's inbound-email secret (compared in constant time); a
 * workspace that never issued one accepts nothing. Read outside any call's transaction, like an API key.
 */
export async function inboundEmailSecretValid(
  db: DataSource,
  workspaceId: string,
  presented: string,
): Promise<boolean> {
  const row = await new Data(db.manager, workspaceId)
    .global(WorkspaceEntity)
    .findOne({ id: workspaceId }, { select: { inbound_email_secret_hash: true } });
  const stored = row?.inbound_email_secret_hash;
  if (!stored || !presented.startsWith(PREFIX)) return false;
  return sameFingerprint(Buffer.from(stored, 'hex'), fingerprintKey(presented));
}
