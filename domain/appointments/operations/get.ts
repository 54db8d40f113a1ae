import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { LEADS_READ } from '../../leads';
import { appointmentsIn } from '../repository/appointments';
import { appointmentIdField } from '../schemas';
import { APPOINTMENT, appointmentView } from '../views';

export const getAppointment = defineOperation({
  name: 'appointment.get',
  title: 'Get an appointment',
  description:
    'One appointment: its status (REQUESTED, PENDING, CONFIRMED, DECLINED, CANCELLED, NO_SHOW), times and reason.',
  returns: 'The appointment.',
  requirement: LEADS_READ,
  reach: 'record',
  ...READ_ONLY,
  input: yup.object({ appointmentId: appointmentIdField }),
  output: APPOINTMENT,
  doors: { mcp: true },
  summary: (i) => `Read appointment ${i.appointmentId}`,
  run: async (ctx, i) => {
    const row = await appointmentsIn(ctx.data).find(i.appointmentId);
    if (!row) throw notFound('appointment');
    return appointmentView(row);
  },
});
