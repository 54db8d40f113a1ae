import * as yup from 'yup';
import { describe } from '../kernel/json-schema';

/** A prospect list, by name or id. */
export const listName = describe(
  yup.string().trim().min(1, 'list must not be empty').max(200, 'list must be at most 200 characters'),
  'A prospect list, by name (or id).',
);

/** The prospect an operation acts on. */
export const prospectIdField = describe(
  yup
    .string()
    .typeError('${path} must be a UUID')
    .uuid('${path} must be a UUID')
    .required('${path} is required'),
  'The prospect id.',
);
