import * as yup from 'yup';
import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { object, oneOf, nullable, uuid } from '../../kernel/shapes';
import { type IntakeResult, recordIntake, suppressedError } from '../../leads';
import { heldProspect, withList } from '../lookup';
import { prospectsIn } from '../repository/prospects';
import { PROSPECTS_WRITE } from '../requirements';
import { prospectIdField } from '../schemas';
import { PROSPECT, prospectView } from '../views';

type Approved = {
  prospect: ReturnType<typeof prospectView>;
  lead_id: string | null;
  outcome: IntakeResult['outcome'];
};

/**
 * A person turns a prospect into a lead through the intake every lead goes through (dedup, suppression,
 * `lead.created` / `lead.touched`, qualification), with source type `prospecting` and the list as its
 * source. A suppressed contact is refused like POST /leads (409 `suppressed`); the prospect is dropped.
 */
export const approveProspect = defineOperation({
  name: 'prospect.approve',
  title: 'Approve a prospect as a lead',
  description:
    'Turns a prospect into a lead: matched against existing leads (merged, not duplicated), refused when the contact is suppressed, then qualified. Follow-up is not started. Approving one already approved changes nothing.',
  returns:
    '{ prospect, lead_id, outcome: CREATED | MERGED | DUPLICATE }; a suppressed contact is refused (suppressed).',
  requirement: PROSPECTS_WRITE,
  reach: 'record',
  ...WRITE,
  idempotent: true,
  input: yup.object({ prospectId: prospectIdField }),
  output: object(
    {
      prospect: PROSPECT,
      lead_id: nullable(uuid),
      outcome: oneOf(['CREATED', 'MERGED', 'DUPLICATE', 'SUPPRESSED']),
    },
    { title: 'ProspectApproval' },
  ),
  doors: { mcp: true, admin: { command: 'prospect approve', flags: (f) => ({ prospectId: f.id }) } },
  refusal: (out: Approved) => (out.outcome === 'SUPPRESSED' ? suppressedError() : undefined),
  summary: (i) => `Approve prospect ${i.prospectId} as a lead`,
  run: async (ctx, { prospectId }): Promise<Approved> => {
    const p = await heldProspect(ctx, prospectId);
    if (p.status === 'APPROVED')
      return { prospect: await withList(ctx, p), lead_id: p.lead_id, outcome: 'DUPLICATE' };
    if (p.status === 'REJECTED')
      throw new DomainError('conflict', 'The prospect was rejected: it cannot be approved.');
    const data = ctx.data.in(p.workspace_id);
    const list = await prospectsIn(data).listById(p.list_id);
    const answers = Object.fromEntries(
      (['company', 'industry', 'role', 'country', 'website'] as const)
        .filter((f) => p[f] !== null)
        .map((f) => [f, p[f]]),
    );
    const intake = await recordIntake(
      { ...ctx, data, workspaceId: p.workspace_id },
      {
        contact: { first_name: p.first_name, last_name: p.last_name, email: p.email, phone: p.phone },
        source: list!.name,
        sourceType: 'prospecting',
        answers,
        consentAt: null,
      },
    );
    const changed = await prospectsIn(data).change(
      p.id,
      intake.outcome === 'SUPPRESSED'
        ? { status: 'DROPPED', dropped_reason: 'suppressed', decided_at: new Date() }
        : { status: 'APPROVED', lead_id: intake.data!.id, decided_at: new Date() },
    );
    ctx.audit(p.workspace_id, {
      prospect_id: p.id,
      lead_id: intake.data?.id ?? null,
      outcome: intake.outcome,
    });
    return {
      prospect: prospectView(changed, list!.name),
      lead_id: intake.data?.id ?? null,
      outcome: intake.outcome,
    };
  },
});
