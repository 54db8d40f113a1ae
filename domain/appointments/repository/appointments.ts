import { LessThan, MoreThanOrEqual, type FindOptionsWhere } from 'typeorm';
import type { Changes, Data } from '../../kernel/data';
import { AppointmentEntity, type Appointment } from '../entities';
import type { AppointmentStatus } from '../rules';

export type AppointmentFilter = {
  leadId?: string;
  status?: AppointmentStatus;
  from?: Date;
  to?: Date;
  limit: number;
};

/** A workspace's bookings. */
export const appointmentsIn = (data: Data) => {
  const rows = data.scoped(AppointmentEntity);
  return {
    add: (values: Changes<Appointment>) => rows.insert(values),
    find: (id: string) => rows.findOne({ id }),
    lock: (id: string) => rows.findOne({ id }, { lock: true }),
    /** Soonest first: what is coming up is what a person acts on. */
    list: (f: AppointmentFilter) => {
      const where: FindOptionsWhere<Appointment> = {};
      if (f.leadId) where.lead_id = f.leadId;
      if (f.status) where.status = f.status;
      // Overlapping the range: ends after it starts, starts before it ends.
      if (f.from) where.ends_at = MoreThanOrEqual(f.from);
      if (f.to) where.starts_at = LessThan(f.to);
      return rows.find(where, { order: { starts_at: 'ASC', id: 'ASC' }, take: f.limit });
    },
    move: async (id: string, values: Changes<Appointment>): Promise<Appointment> =>
      (await rows.update({ id }, { ...values, updated_at: () => 'clock_timestamp()' }))[0]!,
    /** Whether the lead still has a booking waiting for a person (it keeps `needs_attention`). */
    otherPending: (leadId: string, exceptId: string) =>
      rows
        .find({ lead_id: leadId, status: 'PENDING' }, { take: 2, select: { id: true } })
        .then((found) => found.some((a) => a.id !== exceptId)),
    /**
     * Open bookings whose workflow may never have started (Temporal was down at booking): any still
     * REQUESTED past the grace, and the last hour's PENDING or CONFIRMED ones still ahead. SQL: one
     * scan of the partial index across every workspace, for the maintenance sweep.
     */
    unstarted: (graceMinutes: number, batch: number) =>
      data.sql<Appointment[]>(
        `SELECT * FROM appointments
          WHERE status IN ('REQUESTED', 'PENDING', 'CONFIRMED')
            AND created_at < clock_timestamp() - make_interval(mins => $1)
            AND (status = 'REQUESTED' OR created_at > clock_timestamp() - interval '1 hour')
            AND (status <> 'CONFIRMED' OR starts_at > clock_timestamp())
          ORDER BY created_at LIMIT $2`,
        [graceMinutes, batch],
      ),
  };
};
