import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { boolean, object, string, uuid } from '../../kernel/shapes';
import { LEADS_WRITE } from '../../leads/requirements';
import { suppressAddress } from '../../leads/suppress';
import { messagesIn } from '../repository';

/**
 * A bounce report (a DSN, RFC 3464) for an email the server had accepted: a permanent failure (5.x.x)
 * marks the message `bounced` and suppresses the address (`contact.suppressed`, reason `bounce`), once;
 * a delay (4.x.x) changes nothing.
 */
export const recordBounce = defineOperation({
  name: 'message.bounce',
  title: 'Record a bounce report',
  description:
    'Records a delivery-status report for an email we sent: a permanent failure marks the message bounced and suppresses the address (contact.suppressed, bounce); a delay changes nothing.',
  returns: '{ message_id, bounced, status }.',
  requirement: LEADS_WRITE,
  reach: 'workspace',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup.object({
    originalMessageId: describe(
      yup.string().trim().max(1_000).required('originalMessageId is required'),
      'The Message-ID of the email that bounced.',
    ),
    status: describe(
      yup
        .string()
        .matches(/^[245]\.\d{1,3}\.\d{1,3}$/, 'status must be an RFC 3463 status such as 5.1.1')
        .required('status is required'),
      'The RFC 3463 status code.',
    ),
    diagnostic: describe(yup.string().max(500).default(''), "The receiving server's words."),
  }),
  output: object({ message_id: uuid, bounced: boolean, status: string() }),
  doors: { public: { route: 'POST /hooks/email/:workspaceId (a delivery-status report)' } },
  summary: (i) => `Record a ${i.status} bounce`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const messages = messagesIn(ctx.data);
    const msg = await messages.outboundByProviderId('email', i.originalMessageId);
    if (!msg || !msg.to_address) throw notFound('email with this Message-ID');
    const permanent = i.status.startsWith('5.');
    const first = permanent && msg.status === 'sent';
    if (first) {
      await messages.change(msg.id, {
        status: 'bounced',
        error: `bounced: ${i.status} ${i.diagnostic}`.trim().slice(0, 500),
      });
      await suppressAddress(ctx, workspaceId, {
        address: msg.to_address,
        channel: 'email',
        reason: 'bounce',
        source: 'bounce report',
      });
    }
    ctx.audit(workspaceId, { message_id: msg.id, status: i.status, recorded: first });
    return { message_id: msg.id, bounced: permanent, status: i.status };
  },
});
