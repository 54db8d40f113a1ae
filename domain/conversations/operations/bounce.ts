import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { boolean, object, string, uuid } from '../../kernel/shapes';
import { reportedEmail, takeFeedback } from '../feedback';
import { EMAIL_HOOK } from '../provider-hooks';
import { REPORT_OPERATION, reportFields } from './reports';

/**
 * A bounce report (a DSN, RFC 3464) for an email we sent. Authenticated (its sender's domain proven)
 * and naming the recipient the email went to, a permanent failure (5.x.x) marks the message `bounced`
 * with a hard bounce, suppresses the address (`contact.suppressed`, reason `bounce`) and feeds the
 * campaign's brake, once. A delay (4.x.x) or an unauthenticated report changes nothing.
 */
export const recordBounce = defineOperation({
  name: 'message.bounce',
  title: 'Record a bounce report',
  description:
    'Records a delivery-status report for an email we sent: an authenticated permanent failure marks the message bounced and suppresses the address (contact.suppressed, bounce), and may pause its campaign (deliverability); a delay or an unauthenticated report changes nothing.',
  returns: '{ message_id, bounced, status, recorded }.',
  ...REPORT_OPERATION,
  input: yup.object({
    ...reportFields,
    status: describe(
      yup
        .string()
        .matches(/^[245]\.\d{1,3}\.\d{1,3}$/, 'status must be an RFC 3463 status such as 5.1.1')
        .required('status is required'),
      'The RFC 3463 status code.',
    ),
    diagnostic: describe(yup.string().max(500).default(''), "The receiving server's words."),
  }),
  output: object({ message_id: uuid, bounced: boolean, status: string(), recorded: boolean }),
  // A delivery-status report arrives at the inbound-email webhook.
  doors: { public: [EMAIL_HOOK] },
  summary: (i) => `Record a ${i.status} bounce`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const { msg, ignored } = await reportedEmail(ctx, i);
    const permanent = i.status.startsWith('5.');
    const first = !ignored && permanent && (msg.status === 'sent' || msg.status === 'sending');
    const taken = first
      ? await takeFeedback(ctx, msg, 'hard_bounce', {
          status: 'bounced',
          error: `bounced: ${i.status} ${i.diagnostic}`.trim().slice(0, 500),
          source: 'bounce report',
        })
      : undefined;
    ctx.audit(workspaceId, {
      message_id: msg.id,
      status: i.status,
      authenticity: i.authenticity,
      recorded: first,
      ...(ignored && { ignored }),
      ...(taken?.braked && { campaign_paused: msg.campaign_id }),
    });
    return { message_id: msg.id, bounced: permanent, status: i.status, recorded: first };
  },
});
