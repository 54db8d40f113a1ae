import { DomainError } from '../../kernel/errors';
import { WRITE, defineOperation } from '../../kernel/operation';
import { runOperation } from '../../kernel/runner';
import { arrayOf, object, oneOf } from '../../kernel/shapes';
import { LEADS_WRITE } from '../requirements';
import { LEAD, WARNINGS, type LeadView, type Warning } from '../views';
import { leadEditInput, trimStrings } from '../schemas';
import { addLeadNote } from './add-note';
import { setLeadStatus } from './set-status';
import { updateLead } from './update';
import { AREA } from '../area';

/** The steps of an edit, in the order they apply: details, then status, then a note. */
const STEPS = [updateLead, setLeadStatus, addLeadNote] as const;
const STEP_NAMES = STEPS.map((op) => op.name);

/**
 * PATCH /leads/{id}: the one REST route that runs several operations. Not a transaction: each step
 * commits on its own (with its own audit row), and a refused later step reports what was applied.
 */
export const editLead = defineOperation({
  name: 'lead.edit',
  title: 'Change details, then status, then add a note',
  description:
    'Send only the fields to change. Details apply first, then status, then the note; each step commits on its own, and a refused later step names itself and the steps that stay applied.',
  returns: '{ data: lead, applied: [step], warnings }.',
  requirement: LEADS_WRITE,
  reach: 'record',
  ...WRITE,
  steps: STEPS,
  input: leadEditInput,
  prepare: trimStrings,
  output: object(
    {
      data: LEAD,
      applied: arrayOf(oneOf(STEP_NAMES), { maxItems: STEP_NAMES.length }),
      warnings: WARNINGS,
    },
    { title: 'PatchResponse' },
  ),
  doors: {
    rest: {
      method: 'patch',
      path: '/leads/:id',
      operationId: 'updateLead',
      area: AREA,
      params: { id: 'leadId' },
      success: 'Every step applied.',
      answers: {
        404: 'No such lead in this workspace.',
        409: '`conflict`: a step was refused; `failed_step` names it and `applied` lists the steps that stay applied.',
      },
    },
  },
  summary: (i) => `Edit lead ${i.leadId}`,
  run: async (ctx, input) => {
    const { leadId, status, note, ...details } = input;
    // Each step is confined as the edit was: an operator who named a workspace reaches only its leads.
    const within = { workspaceId: ctx.workspaceId };
    const applied: string[] = [];
    const warnings: Warning[] = [];
    const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      try {
        const out = await fn();
        applied.push(name);
        return out;
      } catch (err) {
        if (
          err instanceof DomainError &&
          (err.code === 'conflict' || (applied.length > 0 && err.code !== 'forbidden'))
        ) {
          throw new DomainError('conflict', err.message, {
            ...err.details,
            failed_step: name,
            applied: [...applied],
          });
        }
        throw err;
      }
    };
    let lead: LeadView | undefined;
    if (Object.keys(details).length > 0)
      lead = await step(updateLead.name, () =>
        runOperation(ctx.services, updateLead, ctx.actor, { leadId, ...details }, within),
      );
    if (status !== undefined) {
      const r = await step(setLeadStatus.name, () =>
        runOperation(ctx.services, setLeadStatus, ctx.actor, { leadId, status }, within),
      );
      warnings.push(...r.warnings);
      lead = r.lead;
    }
    if (note !== undefined)
      lead = (
        await step(addLeadNote.name, () =>
          runOperation(ctx.services, addLeadNote, ctx.actor, { leadId, note }, within),
        )
      ).lead;
    return { data: lead, applied, warnings };
  },
});
