import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { parkedOperation } from '../../kernel/gate';
import { describe } from '../../kernel/json-schema';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { arrayOf, integer, nullable, object, oneOf, openObject, string, uuid } from '../../kernel/shapes';
import { emailSchema } from '../../kernel/validate';
import { approvalsIn } from '../repository/approvals';
import { DECIDE } from '../requirements';
import { APPROVAL_FIELDS, approvalId } from '../schemas';
import { approvalText, showApproval as shown, type ShownApproval } from '../show';

/**
 * What an approver reads before deciding: the snapshot of the effect in plain words, whom it reaches,
 * who asked and whether that key and its owner may still ask it, whether the target changed since, and
 * whether the person named may approve it.
 */
export const showApproval = defineOperation({
  name: 'approval.show',
  title: 'Show an approval request in full',
  description:
    "One approval request as an approver should read it before deciding: its summary; what it will do as it stood when asked (every campaign step with its subject and body, placeholders shown, the audience and its size then, window and channel; an agent's review level, limits, sources and cadence; the system and account of a connection); whom it reaches (a campaign's audience as counted when asked, with the first names and addresses); who asked (key name, owner) and whether that key and owner are still valid; whether the target changed since (approving a changed request is refused; an audience whose people changed is reached only where they still qualify); and, for the person named in as, whether they may approve it (the workspace may require a second person). Once decided: who decided and how (with their passkey: the credential, the approved digest and the signed assertion; or operator-asserted, with the operating system user and host).",
  returns:
    'The approval request with `decided_assertion`, `requester`, `members`, `changed_since_requested`, `members_since_requested`, `second_person_required` and `decider`; the admin command prints it as text.',
  requirement: DECIDE,
  reach: 'record',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({
    id: describe(approvalId, 'The approval request id.'),
    as: describe(emailSchema, 'The email of the admin or owner who would decide: says whether they may.'),
  }),
  output: object(
    {
      ...APPROVAL_FIELDS,
      decided_assertion: nullable(
        openObject(
          "The signed WebAuthn assertion of a member's decision (passkey), exactly as their browser sent it: the evidence that they decided.",
        ),
      ),
      requester: object({
        key_id: uuid,
        key_kind: nullable({
          ...oneOf(['key', 'assistant']),
          description:
            'assistant: an assistant connection a member granted over OAuth (key_name is its client, key_prefix its host, the owner the member it acts as).',
        }),
        key_name: nullable(string()),
        key_prefix: nullable(string()),
        key_state: oneOf(['live', 'revoked', 'expired', 'missing']),
        owner_user_id: uuid,
        owner_email: nullable(string()),
        owner_role: nullable(string()),
        refusal: nullable(string()),
        still_valid: { type: 'boolean' },
      }),
      members: nullable({
        type: 'object',
        additionalProperties: object({
          count: integer({ minimum: 0 }),
          sample: arrayOf(object({ name: nullable(string()), address: string() })),
        }),
        description:
          'Whom it reaches, as counted when asked: how many, and the first few names and addresses.',
      }),
      changed_since_requested: nullable(arrayOf(string())),
      members_since_requested: nullable({
        type: 'object',
        additionalProperties: object({
          left: integer({ minimum: 0 }),
          joined: integer({ minimum: 0 }),
          still: integer({ minimum: 0 }),
        }),
        description:
          'Per member set, while it waits: how many counted no longer qualify (left), how many qualify now that were not counted (joined, left out by an approval), and how many counted still qualify (whom approving it reaches).',
      }),
      second_person_required: {
        type: 'boolean',
        description:
          'The workspace requires a second person: the owner of the key that asked may not approve it.',
      },
      decider: nullable(
        object({ email: string(), may_decide: { type: 'boolean' }, refusal: nullable(string()) }),
      ),
    },
    { title: 'ApprovalShown' },
  ),
  doors: {
    admin: {
      command: 'approval show',
      flags: (f) => ({ id: f.id, as: f.as }),
      present: (out: ShownApproval) => approvalText(out),
    },
    console: true,
  },
  summary: (i) => `Show approval request ${i.id}`,
  run: async (ctx, i) => {
    const row = await approvalsIn(ctx.data).find(i.id);
    if (!row) throw notFound('approval request');
    return shown(ctx.data, row, parkedOperation(row.operation), i.as);
  },
});
