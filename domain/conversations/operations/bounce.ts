import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { boolean, nullable, object, string, uuid } from '../../kernel/shapes';
import { fileReport, settleReport } from '../feedback';
import { EMAIL_HOOK } from '../provider-hooks';
import { REPORT_OPERATION, reportFields } from '../report-operation';

/**
 * A bounce report (a DSN, RFC 3464) for an email we sent. Stored whatever it says; proven (delivered to
 * the email's own return path, and naming the recipient it went to), a permanent failure (5.x.x) marks
 * the message `bounced` with a hard bounce, suppresses the address (`contact.suppressed`, reason
 * `bounce`) and feeds the campaign's brake, once. A delay (4.x.x) or an unproven report changes nothing.
 */
export const recordBounce = defineOperation({
  name: 'message.bounce',
  title: 'Record a bounce report',
  description:
    "Records a delivery-status report for an email we sent: a proven permanent failure (delivered to the email's own return path, naming its recipient) marks the message bounced and suppresses the address (contact.suppressed, bounce), and may pause its campaign (deliverability); a delay or an unproven report is stored and changes nothing.",
  returns: '{ message_id, bounced, status, proven, recorded }.',
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
  output: object({
    message_id: nullable(uuid),
    bounced: boolean,
    status: string(),
    proven: boolean,
    recorded: boolean,
  }),
  // A delivery-status report arrives at the inbound-email webhook.
  doors: { public: [EMAIL_HOOK] },
  summary: (i) => `Record a ${i.status} bounce`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const filed = await fileReport(ctx, 'bounce', i, { status: i.status, feedback_type: null });
    const permanent = i.status.startsWith('5.');
    const { recorded, audit } = await settleReport(
      ctx,
      filed,
      (msg) => permanent && (msg.status === 'sent' || msg.status === 'sending'),
      'hard_bounce',
      {
        status: 'bounced',
        error: `bounced: ${i.status} ${i.diagnostic}`.trim().slice(0, 500),
        source: 'bounce report',
      },
    );
    ctx.audit(workspaceId, { ...audit, status: i.status });
    return {
      message_id: filed.msg?.id ?? null,
      bounced: permanent,
      status: i.status,
      proven: filed.proof.proven,
      recorded,
    };
  },
});
