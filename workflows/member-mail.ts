import {
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  setWorkflowOptions,
  sleep,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  MEMBER_MAIL_ATTEMPTS,
  MEMBER_MAIL_LADDER_MS,
  type HandOver,
  type MemberMailInput,
} from '../domain/identity/workflow-contract';

// Recording is our own database work: retried until it succeeds.
const { settleMemberMail } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});
// A hand-over that throws is retried only until it has claimed the mail: a retry that finds the mail
// already claimed (`sending`) fails it instead of sending, so nothing is sent twice.
const { handOverMemberMail } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
});

const CUT_OFF: HandOver = {
  kind: 'transient',
  maybeSent: true,
  error: 'the hand-over failed and was not retried to the end, so the mail may or may not have left',
};

/**
 * One mail to a member, `member-mail:<id>`, through its retry ladder; it fails, visibly, when the mail
 * could not be sent (the row says why). Its input names the mail only: the address and text stay in
 * the database, sealed, and never enter this history.
 */
export async function memberMailWorkflow(input: MemberMailInput): Promise<{ attempts: number }> {
  for (let i = 0; i < MEMBER_MAIL_ATTEMPTS; i++) {
    let result: HandOver;
    try {
      result = await handOverMemberMail(input.mailId, i + 1);
    } catch (err) {
      if (isCancellation(err)) throw err;
      result = CUT_OFF;
    }
    const { outcome, error } =
      'done' in result
        ? { outcome: result.done, error: result.error }
        : await settleMemberMail(input.mailId, result, i === MEMBER_MAIL_ATTEMPTS - 1);
    if (outcome === 'sent') return { attempts: i + ('done' in result ? 0 : 1) };
    if (outcome === 'failed')
      throw ApplicationFailure.create({
        type: 'MemberMailFailed',
        message: `the mail was not sent: ${error ?? 'see its row'}`,
        nonRetryable: true,
      });
    await sleep(MEMBER_MAIL_LADDER_MS[i]!);
  }
  throw new Error('unreachable: the ladder ends with its last attempt');
}

// Pinned: its ladder is over within 9 minutes (a sign-in link is worth no more), so a run ends on the code
// it began on, and a change to it needs no patch.
setWorkflowOptions({ versioningBehavior: 'PINNED' }, memberMailWorkflow);
