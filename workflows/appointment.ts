import {
  allHandlersFinished,
  condition,
  defineQuery,
  defineUpdate,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type {
  AppointmentAnswer,
  AppointmentDecision,
  AppointmentInput,
} from '../domain/appointments/workflow-contract';

/** A person confirms, declines or cancels; the answer is the booking once calendar and record agree. */
export const decideUpdate = defineUpdate<AppointmentAnswer, [AppointmentDecision]>('decide');
const statusQuery = defineQuery<string>('status');

// A calendar that keeps failing (down, wrong password) must not keep the lead waiting: after a few
// attempts the booking goes to a person instead. Refusals are never retried.
const calendar = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '2 seconds',
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['DomainError'],
  },
});
// An event left on the calendar after a cancellation blocks a real slot: keep trying for about a day.
const cleanup = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', maximumInterval: '1 hour', maximumAttempts: 30 },
});

const OPEN = ['REQUESTED', 'PENDING', 'CONFIRMED'];

/**
 * One booking, `appointment:<id>`: asks the calendar, then waits until the booking starts, taking a
 * person's decisions as Updates one at a time (the calendar sees one writer per booking). A booking
 * still pending at its start is declined; a declined or cancelled one has its event removed.
 */
export async function appointmentWorkflow(input: AppointmentInput): Promise<string> {
  const id = input.appointmentId;
  let status = 'REQUESTED';
  let working = true;
  setHandler(statusQuery, () => status);
  setHandler(decideUpdate, async (d) => {
    await condition(() => !working);
    working = true;
    try {
      const view = await calendar.decideAppointment(id, d);
      status = view.status;
      return view;
    } finally {
      working = false;
    }
  });

  try {
    status = (await calendar.placeAppointment(id)).status;
  } catch {
    status = (
      await calendar.holdAppointment(id, 'The calendar could not be reached: a person must confirm it.')
    ).status;
  }
  working = false;

  await condition(() => !OPEN.includes(status), Math.max(0, Date.parse(input.startsAt) - Date.now()));
  await condition(() => !working);
  if (status === 'PENDING' || status === 'REQUESTED') {
    working = true;
    status = (await calendar.expireAppointment(id)).status;
    working = false;
  }
  if (!OPEN.includes(status)) await cleanup.removeCalendarEvent(id);
  await condition(allHandlersFinished);
  return status;
}

// Auto-upgrade: a booking waits until it starts, weeks ahead; a change to it ships behind patched()
// (docs/temporal.md, "Deploys").
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, appointmentWorkflow);
