import { clockDefault, entity, inWorkspace, oneOfCheck, references, uuidKey } from '../kernel/entity';
import { APPOINTMENT_STATUSES, MAX_HOURS, type AppointmentStatus } from './rules';

export type Appointment = {
  id: string;
  workspace_id: string;
  lead_id: string;
  status: AppointmentStatus;
  starts_at: Date;
  ends_at: Date;
  /** The IANA zone the booking was made in (the workspace's unless the caller named one). */
  timezone: string;
  title: string;
  note: string | null;
  /** `caldav` when a calendar was connected at booking, `manual` when a person must confirm. */
  provider: string;
  connection_id: string | null;
  /** Where the calendar event was written (PUT), so cancelling removes exactly that resource. */
  calendar_event_url: string | null;
  /** Why it is PENDING, DECLINED or CANCELLED. */
  reason: string | null;
  created_at: Date;
  updated_at: Date;
};

export const AppointmentEntity = entity<Appointment>({
  name: 'Appointment',
  tableName: 'appointments',
  columns: {
    id: uuidKey('appointments'),
    workspace_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    status: { type: 'text', default: 'REQUESTED' },
    starts_at: { type: 'timestamptz' },
    ends_at: { type: 'timestamptz' },
    timezone: { type: 'text' },
    title: { type: 'text' },
    note: { type: 'text', nullable: true },
    provider: { type: 'text' },
    connection_id: { type: 'uuid', nullable: true },
    calendar_event_url: { type: 'text', nullable: true },
    reason: { type: 'text', nullable: true },
    created_at: clockDefault,
    updated_at: clockDefault,
  },
  relations: {
    ...inWorkspace('appointments'),
    lead: references('appointments', 'lead_id', 'Lead'),
    connection: references('appointments', 'connection_id', 'Connection', { cascade: false, nullable: true }),
  },
  checks: [
    oneOfCheck('appointments', 'status', APPOINTMENT_STATUSES),
    {
      name: 'appointments_window_check',
      expression: `((ends_at > starts_at) AND (ends_at <= (starts_at + '${String(MAX_HOURS).padStart(2, '0')}:00:00'::interval)))`,
    },
  ],
  indices: [
    { name: 'appointments_lead', columns: ['lead_id', 'starts_at'] },
    { name: 'appointments_workspace_start', columns: ['workspace_id', 'starts_at'] },
    {
      name: 'appointments_open',
      columns: ['created_at'],
      where: "(status = ANY (ARRAY['REQUESTED'::text, 'PENDING'::text, 'CONFIRMED'::text]))",
    },
  ],
});
