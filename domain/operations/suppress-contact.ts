import type { DataSource } from 'typeorm';
import * as yup from 'yup';
import { authorize, type Actor } from '../actor';
import { operationAudit, writeAudit } from '../audit';
import { emitEvent } from '../events/emit';
import { normaliseContact, workspaceTimezone } from '../leads/contact-input';
import { LEADS_WRITE } from '../leads/requirements';
import { validate } from '../validate';
import { CHANNELS } from './record-inbound-message';

const schema = yup.object({
  workspaceId: yup.string().uuid('workspace must be a UUID').required('workspace is required'),
  address: yup.string().trim().required('address is required (an email or a phone number)'),
  channel: yup
    .string()
    .oneOf(['ALL', ...CHANNELS], `channel must be ALL or one of ${CHANNELS.join(', ')}`)
    .default('ALL'),
  reason: yup
    .string()
    .oneOf(
      ['unsubscribed', 'bounce', 'complaint', 'invalid_number', 'manual'],
      'reason must be unsubscribed, bounce, complaint, invalid_number or manual',
    )
    .default('manual'),
  source: yup.string().trim().max(200).default('operator'),
});

/**
 * Blocks an address: intake refuses it from then on. An opt-out emits contact.unsubscribed, any
 * other reason contact.suppressed, naming the lead when the address belongs to one.
 */
export async function suppressContact(db: DataSource, actor: Actor, input: unknown) {
  authorize(actor, LEADS_WRITE);
  const f = validate(schema, input);
  return db.transaction(async (m) => {
    const tz = await workspaceTimezone(m, f.workspaceId);
    const address = f.address.includes('@')
      ? normaliseContact({ email: f.address }, tz).email!
      : normaliseContact({ phone: f.address }, tz).phone!;
    const [row] = await m.query<[{ id: string }]>(
      `INSERT INTO suppressions (workspace_id, address, channel, reason, source) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id, address, channel) DO UPDATE SET reason = EXCLUDED.reason RETURNING id`,
      [f.workspaceId, address, f.channel, f.reason, f.source],
    );
    const [lead] = await m.query<{ id: string }[]>(
      `SELECT id FROM leads WHERE workspace_id = $1 AND (email = $2 OR phone = $2) AND archived_at IS NULL LIMIT 1`,
      [f.workspaceId, address],
    );
    const type = f.reason === 'unsubscribed' ? 'contact.unsubscribed' : 'contact.suppressed';
    await emitEvent(
      m,
      f.workspaceId,
      type,
      { type: 'lead', id: lead?.id ?? row.id },
      {
        lead_id: lead?.id ?? null,
        suppression_id: row.id,
        channel: f.channel,
        reason: f.reason,
        source: f.source,
      },
    );
    await writeAudit(
      m,
      operationAudit(actor.ctx, 'contact.suppress', f.workspaceId, { suppression_id: row.id }),
    );
    return {
      id: row.id,
      workspace_id: f.workspaceId,
      address,
      channel: f.channel,
      reason: f.reason,
      source: f.source,
    };
  });
}
