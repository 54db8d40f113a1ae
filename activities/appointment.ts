import { operatorActor } from '../domain/kernel/actor';
import { Data } from '../domain/kernel/data';
import { DomainError } from '../domain/kernel/errors';
import { refusalsAsFailures } from '../infra/temporal/failures';
import { appointmentWorkflowId } from '../infra/temporal/workflow-ids';
import type { BookingDecision, Services } from '../domain/kernel/operation';
import { runOperation } from '../domain/kernel/runner';
import {
  type Appointment,
  bookingNamed,
  forgetCalendarEvent,
  appointmentView,
  type AppointmentView,
  calendarOf,
  OPEN,
  recordOutcome,
} from '../domain/appointments';

export type AppointmentDeps = Services;

type Outcome = { to: 'CONFIRMED' | 'PENDING' | 'DECLINED' | 'CANCELLED'; reason?: string };

/**
 * A booking's I/O: the calendar (free/busy, the event written or removed) and the record of each
 * outcome, which goes through the runner like any change (its events, its audit row). The calendar
 * is always asked first: an event is written before the booking is confirmed, and a booking is
 * declined or cancelled before its event is removed.
 */
export const createAppointmentActivities = (deps: AppointmentDeps) => {
  const data = () => new Data(deps.db.manager, undefined);
  const read = async (id: string): Promise<Appointment> => {
    const row = await bookingNamed(deps.db, id);
    if (!row) throw new Error(`appointment ${id} does not exist`);
    return row;
  };
  const record = (row: Appointment, o: Outcome & { url?: string; connectionId?: string }, by?: unknown) =>
    runOperation(
      deps,
      recordOutcome,
      operatorActor({ door: 'activity', requestId: appointmentWorkflowId(row.id) }),
      {
        appointmentId: row.id,
        to: o.to,
        ...(o.reason ? { reason: o.reason } : {}),
        ...(o.url ? { calendar_event_url: o.url } : {}),
        ...(o.connectionId ? { connection_id: o.connectionId } : {}),
      },
      by ? { auditDetails: { decided_by: by } } : {},
    );
  /** Writes the booking's event on the workspace's calendar, if one is connected. */
  const write = async (row: Appointment) => {
    const calendar = await calendarOf(data().in(row.workspace_id), deps.secretsKey);
    if (!calendar) return {};
    const url = await calendar.client.put(
      {
        uid: row.id,
        start: row.starts_at,
        end: row.ends_at,
        summary: row.title,
        description: row.note ?? undefined,
      },
      deps.clock?.() ?? new Date(),
    );
    return { url, connectionId: calendar.connectionId };
  };

  return {
    /** Asks the calendar and confirms the booking, or leaves it waiting for a person. */
    async placeAppointment(id: string): Promise<AppointmentView> {
      const row = await read(id);
      if (row.status !== 'REQUESTED') return appointmentView(row);
      const calendar = await calendarOf(data().in(row.workspace_id), deps.secretsKey);
      if (!calendar)
        return record(row, { to: 'PENDING', reason: 'No calendar is connected: a person must confirm it.' });
      if (await calendar.client.busy(row.starts_at, row.ends_at, row.id))
        return record(row, {
          to: 'PENDING',
          reason: 'The calendar shows the slot busy: a person must confirm it.',
        });
      return record(row, { to: 'CONFIRMED', ...(await write(row)) });
    },
    /** The calendar could not be reached: the booking waits for a person like any it could not confirm. */
    async holdAppointment(id: string, reason: string): Promise<AppointmentView> {
      const row = await read(id);
      if (row.status !== 'REQUESTED') return appointmentView(row);
      return record(row, { to: 'PENDING', reason });
    },
    async decideAppointment(id: string, d: BookingDecision): Promise<AppointmentView> {
      return refusalsAsFailures(async () => {
        const row = await read(id);
        if (d.action === 'confirm') {
          if (row.status !== 'PENDING')
            throw new DomainError(
              'conflict',
              `The appointment is ${row.status}; only a PENDING one can be confirmed.`,
              {
                field: 'appointmentId',
              },
            );
          // A person overrides a busy calendar: the event is written all the same.
          return record(row, { to: 'CONFIRMED', ...(await write(row)) }, d.by);
        }
        const to = d.action === 'decline' ? 'DECLINED' : 'CANCELLED';
        const reason = d.reason ?? (to === 'DECLINED' ? 'Declined by a person.' : 'Cancelled.');
        return record(row, { to, reason }, d.by);
      });
    },
    /** Its start came and nobody confirmed it. */
    async expireAppointment(id: string): Promise<AppointmentView> {
      const row = await read(id);
      if (row.status !== 'PENDING' && row.status !== 'REQUESTED') return appointmentView(row);
      return refusalsAsFailures(() =>
        record(row, { to: 'DECLINED', reason: 'Nobody confirmed it before its start.' }),
      );
    },
    /** Removes a closed booking's event from the calendar it was written to, then forgets where it was. */
    async removeCalendarEvent(id: string): Promise<void> {
      const row = await read(id);
      if (!row.calendar_event_url || OPEN.includes(row.status) || row.status === 'NO_SHOW') return;
      const scoped = data().in(row.workspace_id);
      const calendar = await calendarOf(scoped, deps.secretsKey, row.connection_id ?? undefined);
      if (calendar) await calendar.client.remove(row.calendar_event_url);
      await forgetCalendarEvent(scoped, row.id);
    },
  };
};
