import { DomainError } from '../../domain/kernel/errors';
import { toJsonSchema } from '../../domain/kernel/json-schema';
import { runOperation } from '../../domain/kernel/runner';
import { arrayOf, object, oneOf } from '../../domain/kernel/shapes';
import { validate } from '../../domain/kernel/validate';
import {
  addLeadNote,
  LEAD,
  leadIdField,
  leadPatchSchema,
  type LeadView,
  objectBody,
  setLeadStatus,
  trimStrings,
  updateLead,
  type Warning,
  WARNINGS,
} from '../../domain/leads';
import { restActor, type RestRoute } from './routes';

/** The steps of a PATCH, in the order they apply: details, then status, then a note. */
const STEPS = [updateLead, setLeadStatus, addLeadNote] as const;
export const PATCH_STEPS = STEPS.map((op) => op.name);

/**
 * PATCH /leads/{id}: the spec's one REST route that runs several operations. Not a transaction: each
 * step commits on its own, and a refused later step reports what was applied.
 */
export const leadPatchRoute = (): RestRoute => ({
  method: 'patch',
  path: '/api/v1/leads/:id',
  operationId: 'updateLead',
  summary: 'Change details, then status, then add a note',
  description:
    'Send only the fields to change. Details apply first, then status, then the note; each step commits on its own, and a refused later step names itself and the steps that stay applied.',
  requirement: updateLead.requirement,
  operations: [...STEPS],
  pathParams: { id: toJsonSchema(leadIdField) },
  body: toJsonSchema(leadPatchSchema),
  output: object(
    {
      data: LEAD,
      applied: arrayOf(oneOf(PATCH_STEPS), { maxItems: PATCH_STEPS.length }),
      warnings: WARNINGS,
    },
    { title: 'PatchResponse' },
  ),
  success: { 200: 'Every step applied.' },
  answers: {
    404: 'No such lead in this workspace.',
    409: '`conflict`: a step was refused; `failed_step` names it and `applied` lists the steps that stay applied.',
  },
  handler: (services) => async (ctx) => {
    const id = (ctx.params as { id: string }).id;
    const leadId = validate(leadIdField, id, { strict: true, path: 'id' });
    const patch = validate(leadPatchSchema, trimStrings(objectBody(ctx.state.body)), { strict: true });
    const actor = restActor(ctx);
    const { status, note, ...details } = patch;
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
        runOperation(services, updateLead, actor, { leadId, ...details }),
      );
    if (status !== undefined) {
      const r = await step(setLeadStatus.name, () =>
        runOperation(services, setLeadStatus, actor, { leadId, status }),
      );
      warnings.push(...r.warnings);
      lead = r.lead;
    }
    if (note !== undefined)
      lead = (
        await step(addLeadNote.name, () => runOperation(services, addLeadNote, actor, { leadId, note }))
      ).lead;
    ctx.body = { data: lead, applied, warnings };
  },
});
