import * as yup from 'yup';
import { describe } from '../../kernel/json-schema';
import { defineOperation } from '../../kernel/operation';
import { boolean, nullable, object, string, uuid } from '../../kernel/shapes';
import { fileReport, settleReport } from '../feedback';
import { EMAIL_HOOK } from '../provider-hooks';
import { REPORT_OPERATION, reportFields } from '../report-operation';

/** ARF feedback types that mean the recipient called it spam (RFC 5965 §7.3); others are only audited. */
const COMPLAINTS = ['abuse', 'fraud'];

/**
 * A complaint (an ARF feedback report, RFC 5965) about an email we sent: a mailbox provider says its
 * user marked it as spam. Stored whatever it says; proven (delivered to the email's own return path, or
 * signed by a feedback loop on MAIL_FEEDBACK_DOMAINS) and naming the recipient it went to, it keeps the
 * complaint on the message, suppresses the address (`contact.suppressed`, reason `complaint`) and feeds
 * the campaign's brake, once.
 */
export const recordComplaint = defineOperation({
  name: 'message.complaint',
  title: 'Record a spam complaint',
  description:
    "Records a feedback-loop report (ARF) for an email we sent: a proven abuse or fraud report (delivered to the email's own return path, or signed by a configured feedback loop, and naming its recipient) suppresses the address (contact.suppressed, complaint) and may pause its campaign (deliverability); an unproven report is stored and changes nothing.",
  returns: '{ message_id, feedback_type, proven, recorded }.',
  ...REPORT_OPERATION,
  input: yup.object({
    ...reportFields,
    feedbackType: describe(
      yup.string().trim().lowercase().max(40).required('feedbackType is required'),
      'The Feedback-Type the report gives (abuse, fraud, virus, other, not-spam).',
    ),
  }),
  output: object({
    message_id: nullable(uuid),
    feedback_type: string(),
    proven: boolean,
    recorded: boolean,
  }),
  // A feedback-loop report arrives at the inbound-email webhook.
  doors: { public: [EMAIL_HOOK] },
  summary: (i) => `Record a ${i.feedbackType} complaint`,
  run: async (ctx, i) => {
    const workspaceId = ctx.workspaceId!;
    const filed = await fileReport(ctx, 'complaint', i, { status: null, feedback_type: i.feedbackType });
    const { recorded, audit } = await settleReport(
      ctx,
      filed,
      (msg) => COMPLAINTS.includes(i.feedbackType) && msg.feedback !== 'complaint',
      'complaint',
      { source: 'complaint report' },
    );
    ctx.audit(workspaceId, { ...audit, feedback_type: i.feedbackType });
    return {
      message_id: filed.msg?.id ?? null,
      feedback_type: i.feedbackType,
      proven: filed.proof.proven,
      recorded,
    };
  },
});
