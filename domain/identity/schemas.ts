import * as yup from 'yup';
import { describe } from '../kernel/json-schema';
import { ROLES, SCOPES, type Role, type Scope } from '../kernel/permissions';
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

/** What a credential may do (a key, an assistant connection): named scopes, at least one, none by default. */
export const scopesField = (what: string) =>
  describe(
    yup
      .array(
        yup
          .mixed<Scope>()
          .oneOf(SCOPES, `each scope must be one of ${SCOPES.join(', ')} (there is no all-access scope)`)
          .required(),
      )
      .min(1, 'scopes must name at least one scope; nothing is granted by default')
      .required('scopes is required'),
    what,
  );
