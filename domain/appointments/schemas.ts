import * as yup from 'yup';
import { describe } from '../kernel/json-schema';

/** The appointment an operation acts on. */
export const appointmentIdField = describe(
  yup
    .string()
    .typeError('appointmentId must be a UUID')
    .uuid('appointmentId must be a UUID')
    .required('appointmentId is required'),
  'The appointment id (UUID), from appointment.book or appointment.list.',
);
