import * as yup from 'yup';
import { CHANNELS } from '../../kernel/channels';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { SUPPRESSION } from '../views';
import { LEADS_WRITE } from '../requirements';
import { SUPPRESSION_REASONS, suppressAddress } from '../suppress';

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
  ...WRITE,
  idempotent: true,
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
        .oneOf(
          [...SUPPRESSION_REASONS],
          'reason must be unsubscribed, bounce, complaint, invalid_number or manual',
        )
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
    const suppression = await suppressAddress(ctx, ctx.workspaceId!, f);
    ctx.audit(suppression.workspace_id, { suppression_id: suppression.id });
    return suppression;
  },
});
