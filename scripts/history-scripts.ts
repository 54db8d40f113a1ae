import { ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../activities';

/**
 * What the activities answer down each path scripts/record-histories.ts records: the same ids and times
 * in every recording, so a re-recorded history differs from its old file only where the code changed.
 */

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

export const WORKSPACE = '3f6d2c1a-8b4e-4f0a-9c7d-5e2b1a0f9d84';
const LEAD = '9a1c7e42-0d3b-4e6f-8a25-7c4b9e1d2f60';
export const DELIVERY = 'c2e8a4f1-6b3d-4a97-8e05-1d9f7b3c5a28';
export const APPROVAL = '7d4b9e2c-1a6f-4c83-b5e0-2f8a6d3c9b17';
export const APPOINTMENT = 'e5a2c7d9-3f1b-4e68-9d40-8b6c2a1e7f35';
export const MESSAGE = '1b7f3d9a-5c2e-4a8b-96d1-4e0c8f2a6b73';
export const CAMPAIGN = '4c9e1a7b-2d5f-4b30-8e6a-9f3d7c1b5e02';
export const AGENT = '8e3a5c1f-7b9d-4f26-a04e-6d2b8f4c1a95';
const AGENT_RUN = '2a6d8f4b-9e1c-4d73-b5a8-3c7e1f9b2d40';
export const SOURCING_RUN = '6f1b3d7e-4a8c-4e95-92b6-0d5a9c3e7f18';
export const QUOTE = 'b8d4f2a6-1c9e-4b57-a3d0-7e5c2b9f4a61';
export const INVOICE = 'd3f7b1e5-8a2c-4d69-b0e4-5a9f3c7d1b26';
const CONNECTION = 'a9c5e3b7-6d1f-4a84-9b27-1e8d4f6a2c50';
const KEY = '0e4a8c2f-3b7d-4e19-a6c5-8d2f1b9e7a34';
const MEMBER = '5d9b1f3a-7e2c-4b68-8f04-6a3e9c1d5b72';
export const APPROVER = 'f1c5a9d3-2e8b-4c46-b7f0-9d3b5e1a8c27';
export const MEMBER_MAIL = '3b8e6d2f-9c4a-4f17-a5e3-7d1c9b0e2a64';

export type Answer<K extends keyof Activities> = Awaited<ReturnType<Activities[K]>>;

/**
 * Answers each of `answers` in turn, one a call: a path's script. A call past its end fails the run
 * (not retried), so a script that no longer fits its workflow stops the recorder instead of looping.
 */
export const inTurn = <T>(...answers: T[]) => {
  let i = 0;
  return async (): Promise<T> => {
    if (i >= answers.length) throw ApplicationFailure.nonRetryable('the script has no more answers');
    return answers[i++]!;
  };
};

/** Stand-ins for the activities, answering what the real ones answer down each recorded path. */
export function scriptedActivities(t0: number) {
  /** A time `ms` after the run began. */
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const request = (status: Answer<'recordApprovalDecision'>['status']): Answer<'recordApprovalDecision'> => ({
    id: APPROVAL,
    status,
    operation: 'connection.disconnect',
    summary: 'Disconnect Google Calendar from Harbour Dental',
    effect: {
      bound: {
        system: 'google_calendar',
        account: { calendar_url: 'https://apidata.googleusercontent.com/caldav/v2/', username: 'desk' },
        connected_at: at(-30 * DAY),
      },
      digest: '6b1f0c3e9a27d4858e2f71c6a0b9d3e4f5a8c7b2d1e0f9a8b7c6d5e4f3a2b1c0',
    },
    requested_by: { key_id: KEY, user_id: MEMBER },
    decided_by: status === 'CANCELLED' ? null : APPROVER,
    decided_at: status === 'CANCELLED' ? null : at(5 * MINUTE),
    decided_via: status === 'CANCELLED' ? null : 'operator',
    decided_credential: null,
    decided_digest: null,
    operator_asserted: status === 'CANCELLED' ? null : { os_user: 'ops', host: 'ops-1' },
    reason: status === 'CANCELLED' ? 'withdrawn by the key that asked' : null,
    outcome:
      status === 'EXECUTED'
        ? {
            id: CONNECTION,
            system: 'google_calendar',
            name: 'Google Calendar',
            status: 'DISCONNECTED',
            connected_at: at(-30 * DAY),
            disconnected_at: at(5 * MINUTE),
          }
        : null,
    error: null,
    expires_at: at(7 * DAY),
    created_at: at(0),
    finished_at: status === 'EXECUTED' || status === 'CANCELLED' ? at(5 * MINUTE) : null,
  });
  const booking = (
    status: Answer<'placeAppointment'>['status'],
    onCalendar: boolean,
    reason: string | null,
  ): Answer<'placeAppointment'> => ({
    id: APPOINTMENT,
    lead_id: LEAD,
    status,
    starts_at: at(2 * DAY),
    ends_at: at(2 * DAY + 30 * MINUTE),
    timezone: 'Europe/London',
    title: 'Consultation',
    note: null,
    provider: 'caldav',
    on_calendar: onCalendar,
    reason,
    created_at: at(0),
    updated_at: at(10 * MINUTE),
  });
  const claimed = (attempt: number): Answer<'claimMessage'> => ({
    send: {
      id: MESSAGE,
      workspace_id: WORKSPACE,
      lead_id: LEAD,
      channel: 'email',
      subject: 'Your quote',
      body: 'Hello Sam, your quote is attached.',
      in_reply_to: null,
      marketing: false,
      to: 'sam@example.com',
      workspaceName: 'Harbour Dental',
      attempt,
    },
  });
  const defaults = {
    attemptDelivery: inTurn<Answer<'attemptDelivery'>>(
      { outcome: 'retry', status: 503 },
      // Attempt 2 finds its endpoint at its cap of attempts in flight: the jittered wait is drawn.
      { outcome: 'busy' },
      { outcome: 'succeeded', status: 200 },
    ),
    recordApprovalDecision: inTurn(request('APPROVED')),
    runApprovedRequest: inTurn(request('EXECUTED')),
    placeAppointment: inTurn(
      booking('PENDING', false, 'The calendar shows the slot busy: a person must confirm it.'),
    ),
    decideAppointment: inTurn(
      booking('CONFIRMED', true, null),
      booking('CANCELLED', true, 'The lead asked to cancel.'),
    ),
    removeCalendarEvent: inTurn<void>(undefined),
    reconcileDeliveries: inTurn<Answer<'reconcileDeliveries'>>({
      examined: 3,
      restarted: 1,
      ended: 1,
      approvals_started: 0,
      appointments_started: 0,
      secrets_destroyed: 1,
    }),
    purgeExpired: inTurn<Answer<'purgeExpired'>>({ idempotency_keys: 412, audit_rows: 5_000, events: 1_287 }),
    recordPing: inTurn(at(0)),
    claimMessage: inTurn(claimed(1), claimed(2)),
    handOverMessage: inTurn<Answer<'handOverMessage'>>(
      { kind: 'transient', error: 'SMTP 451 4.7.1 greylisted, try again later' },
      { kind: 'sent', providerMessageId: '<20261128.4f2a@mail.harbourdental.example>' },
    ),
    settleMessage: inTurn<Answer<'settleMessage'>>('retry', 'sent'),
    handOverMemberMail: inTurn<Answer<'handOverMemberMail'>>(
      { kind: 'transient', error: 'SMTP 451: 451 4.7.1 greylisted, try again later' },
      { kind: 'sent', providerMessageId: `<${MEMBER_MAIL}@leads.example>` },
    ),
    settleMemberMail: inTurn<Answer<'settleMemberMail'>>({ outcome: 'retry' }, { outcome: 'sent' }),
    sendCampaignBatch: inTurn<Answer<'sendCampaignBatch'>>(
      { state: 'sent', sent: 196, failed: 1, skipped: 3 },
      // The sending window shut: the next batch waits for it to open.
      { state: 'wait', ms: 9 * 60 * MINUTE },
      { state: 'sent', sent: 54, failed: 0, skipped: 0 },
      { state: 'stopped', status: 'COMPLETED' },
    ),
    beginAgentRun: inTurn<Answer<'beginAgentRun'>>({ runId: AGENT_RUN, go: true, note: null }),
    agentRunBatch: inTurn<Answer<'agentRunBatch'>>(
      { done: false, acted: 20, note: null },
      { done: true, acted: 0, note: 'limit reached: 20 per run' },
    ),
    finishAgentRun: inTurn<void>(undefined),
    scoreSourcingBatch: inTurn<Answer<'scoreSourcingBatch'>>(
      { done: false, scored: 468, dropped: 32 },
      { done: true, scored: 117, dropped: 9 },
    ),
    expireQuote: inTurn('EXPIRED'),
    remindOverdueInvoice: inTurn(true),
  } satisfies Partial<Activities>;
  return { defaults, request, booking };
}
