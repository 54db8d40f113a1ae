import * as yup from 'yup';
import { describe } from '../kernel/json-schema';
import { ROLES, type Role } from '../kernel/permissions';
import { emailSchema } from '../kernel/validate';

/** The key record a key operation acts on. */
export const keyIdField = describe(
  yup.string().uuid('id must be a UUID').required('id is required'),
  'The key record id.',
);

/** The member a member operation acts on, by email. */
export const memberEmailField = describe(
  emailSchema.required('email is required'),
  "The person's email address.",
);

/** The role a member is given. */
export const memberRoleField = describe(
  yup
    .mixed<Role>()
    .oneOf(ROLES, `role must be one of ${ROLES.join(', ')}`)
    .required('role is required'),
  'viewer < member < admin < owner; keys the person owns act with it from their next call.',
);
