import * as yup from 'yup';
import { describe } from '../kernel/json-schema';
import {
  arrayOf,
  dateTime,
  integer,
  nullable,
  object,
  oneOf,
  openObject,
  string,
  uuid,
} from '../kernel/shapes';
import { APPROVAL_STATUSES } from './views';

const SHA256 = string({ pattern: '^[0-9a-f]{64}$', maxLength: 64 });

/** An approval request as every door answers it. */
export const APPROVAL_FIELDS = {
  id: uuid,
  status: oneOf(APPROVAL_STATUSES),
  operation: string(),
  summary: string(),
  // What the call will do, taken as it parked (kernel/effect.ts); null for requests parked before snapshots.
  effect: nullable(
    object(
      {
        bound: openObject(
          "The named parts that must be the same when the approved call runs, as they stood (a campaign's steps and audience, an agent's review_level and limits).",
        ),
        counted: {
          type: 'object',
          additionalProperties: integer({ minimum: 0 }),
          description: "What was counted as it parked, shown but not bound (the audience's size then).",
        },
        shown: openObject('What the approver also reads that follows from the input and the bound parts.'),
        members: {
          type: 'object',
          additionalProperties: object({ count: integer({ minimum: 0 }), digest: SHA256 }),
          description:
            "Whom it reaches, counted as it parked (a campaign's audience: its leads), by count and the SHA-256 of their ids: the approved run reaches only these, those that still qualify.",
        },
        digest: { ...SHA256, description: 'SHA-256 of the bound parts.' },
      },
      { optional: ['counted', 'shown', 'members'] },
    ),
  ),
  requested_by: object({ key_id: uuid, user_id: uuid }),
  decided_by: nullable(uuid),
  decided_at: nullable(dateTime),
  reason: nullable(string()),
  outcome: nullable(
    openObject("What the approved call answered (EXECUTED): the operation's own answer; null until then."),
  ),
  error: nullable(
    object(
      {
        code: string(),
        message: string(),
        field: string(),
        refused_by: oneOf(['gate']),
        changed: arrayOf(string()),
      },
      { optional: ['field', 'refused_by', 'changed'] },
    ),
  ),
  expires_at: dateTime,
  created_at: dateTime,
  finished_at: nullable(dateTime),
};
export const APPROVAL = object(APPROVAL_FIELDS, { title: 'ApprovalRequest' });

/** The id a caller names a request by. */
export const approvalId = describe(
  yup.string().uuid('${path} must be a UUID').required('${path} is required'),
  'The approval_id a gated call answered with.',
);
