import * as yup from 'yup';
import { CHANNELS } from '../../conversations/channels';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { normaliseContact, workspaceTimezone } from '../contact-input';
import { SUPPRESSION } from '../outputs';
import { LEADS_WRITE } from '../requirements';

const REASONS = ['unsubscribed', 'bounce', 'complaint', 'invalid_number', 'manual'] as const;

/**
 * Blocks an address: intake refuses it from then on. An opt-out emits contact.unsubscribed, any
 * other reason contact.suppressed, naming the lead when the address belongs to one.
 */
export const suppressContact = defineOperation({
  name: 'contact.suppress',
  title: 'Suppress an address',
  description:
    'Blocks an email address or phone number on one channel or all: intake refuses it from then on. An opt-out emits contact.unsubscribed, any other reason contact.suppressed.',
  returns: 'The suppression.',
  requirement: LEADS_WRITE,
  reach: 'workspace',
  changes: true,
  destructive: false,
  idempotent: true,
  gated: false,
  input: yup.object({
    address: describe(
      yup.string().trim().required('address is required (an email or a phone number)'),
      'The email address or phone number to block.',
    ),
    channel: describe(
      yup
        .string()
        .oneOf(['ALL', ...CHANNELS], `channel must be ALL or one of ${CHANNELS.join(', ')}`)
        .default('ALL'),
      'ALL, or the one channel it applies to.',
    ),
    reason: describe(
      yup
        .string()
        .oneOf([...REASONS], 'reason must be unsubscribed, bounce, complaint, invalid_number or manual')
        .default('manual'),
      'Why: unsubscribed is an opt-out; the others are blocks.',
    ),
    source: describe(yup.string().trim().max(200).default('operator'), 'Who or what reported it.'),
  }),
  output: SUPPRESSION,
  doors: {
    admin: {
      command: 'suppression add',
      flags: (f) => ({ address: f.address, channel: f.channel, reason: f.reason, source: f.source }),
    },
  },
  summary: (i) => `Suppress ${i.address} on ${i.channel} (${i.reason})`,
  run: async (ctx, f) => {
    const { m } = ctx;
    const workspaceId = ctx.workspaceId!;
    const tz = await workspaceTimezone(m, workspaceId);
    const address = f.address.includes('@')
      ? normaliseContact({ email: f.address }, tz).email!
      : normaliseContact({ phone: f.address }, tz).phone!;
    const [row] = await m.query<[{ id: string }]>(
      `INSERT INTO suppressions (workspace_id, address, channel, reason, source) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id, address, channel) DO UPDATE SET reason = EXCLUDED.reason RETURNING id`,
      [workspaceId, address, f.channel, f.reason, f.source],
    );
    const [lead] = await m.query<{ id: string }[]>(
      `SELECT id FROM leads WHERE workspace_id = $1 AND (email = $2 OR phone = $2) AND archived_at IS NULL LIMIT 1`,
      [workspaceId, address],
    );
    await ctx.emit(
      workspaceId,
      f.reason === 'unsubscribed' ? 'contact.unsubscribed' : 'contact.suppressed',
      { type: 'lead', id: lead?.id ?? row.id },
      {
        lead_id: lead?.id ?? null,
        suppression_id: row.id,
        channel: f.channel,
        reason: f.reason,
        source: f.source,
      },
    );
    ctx.audit(workspaceId, { suppression_id: row.id });
    return {
      id: row.id,
      workspace_id: workspaceId,
      address,
      channel: f.channel,
      reason: f.reason,
      source: f.source,
    };
  },
});
