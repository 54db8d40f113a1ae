import Router from '@koa/router';
import { DomainError, invalid } from '../../../domain/kernel/errors';
import { validateIdempotencyKey } from '../../../domain/kernel/idempotency';
import type { Services } from '../../../domain/kernel/operation';
import { execute, runOperation } from '../../../domain/kernel/runner';
import { validate } from '../../../domain/kernel/validate';
import { addLeadNote } from '../../../domain/leads/operations/add-note';
import { createLead, suppressedError } from '../../../domain/leads/operations/create';
import { getLead } from '../../../domain/leads/operations/get';
import { searchLeads } from '../../../domain/leads/operations/search';
import { setLeadStatus, type Warning } from '../../../domain/leads/operations/set-status';
import { updateLead } from '../../../domain/leads/operations/update';
import type { LeadView } from '../../../domain/leads/rows';
import { leadPatchSchema, objectBody, trimStrings } from '../../../domain/leads/schemas';
import type { AppContext, RequestState } from '../../context';
import { singleValued } from '../../query';
import { mapRoute, restActor } from './route';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const leadId = (ctx: AppContext) => {
  const id = (ctx.params as { id: string }).id;
  if (!UUID.test(id)) throw invalid('id', 'id must be a UUID');
  return id.toLowerCase();
};

type Step = 'lead.update' | 'lead.set_status' | 'lead.add_note';

export function leadRoutes(services: Services) {
  const router = new Router<RequestState>();

  mapRoute(router, 'get', '/leads', [searchLeads], async (ctx) => {
    ctx.body = await runOperation(services, searchLeads, restActor(ctx), singleValued(ctx.query));
  });

  mapRoute(router, 'post', '/leads', [createLead], async (ctx) => {
    const key = validateIdempotencyKey(ctx.get('Idempotency-Key') || undefined);
    const body = objectBody(ctx.state.body);
    // The key travels in its header here; the assistant door sends it as an argument.
    if ('idempotency_key' in body)
      throw invalid('idempotency_key', 'idempotency_key is not a lead intake field');
    const { output, replayed } = await execute(services, createLead, restActor(ctx), {
      ...body,
      idempotency_key: key,
    });
    if (replayed) ctx.set('Idempotent-Replayed', 'true');
    if (output.outcome === 'SUPPRESSED') {
      const refusal = suppressedError();
      throw new DomainError(refusal.code, refusal.message, {}, 'contact is suppressed');
    }
    ctx.status = output.outcome === 'CREATED' ? 201 : 200;
    ctx.body = output;
  });

  mapRoute(router, 'get', '/leads/:id', [getLead], async (ctx) => {
    ctx.body = await runOperation(services, getLead, restActor(ctx), { leadId: leadId(ctx) });
  });

  // Not a transaction: each step commits on its own, and a refused later step reports what was applied.
  mapRoute(router, 'patch', '/leads/:id', [updateLead, setLeadStatus, addLeadNote], async (ctx) => {
    const id = leadId(ctx);
    const patch = validate(leadPatchSchema, trimStrings(objectBody(ctx.state.body)), { strict: true });
    const actor = restActor(ctx);
    const { status, note, ...details } = patch;
    const applied: Step[] = [];
    const warnings: Warning[] = [];
    const run = async <T>(step: Step, fn: () => Promise<T>): Promise<T> => {
      try {
        const out = await fn();
        applied.push(step);
        return out;
      } catch (err) {
        if (
          err instanceof DomainError &&
          (err.code === 'conflict' || (applied.length > 0 && err.code !== 'forbidden'))
        ) {
          throw new DomainError('conflict', err.message, {
            ...err.details,
            failed_step: step,
            applied: [...applied],
          });
        }
        throw err;
      }
    };
    let lead: LeadView | undefined;
    if (Object.keys(details).length > 0) {
      lead = await run('lead.update', () =>
        runOperation(services, updateLead, actor, { leadId: id, ...details }),
      );
    }
    if (status !== undefined) {
      const r = await run('lead.set_status', () =>
        runOperation(services, setLeadStatus, actor, { leadId: id, status }),
      );
      warnings.push(...r.warnings);
      lead = r.lead;
    }
    if (note !== undefined) {
      lead = (
        await run('lead.add_note', () => runOperation(services, addLeadNote, actor, { leadId: id, note }))
      ).lead;
    }
    ctx.body = { data: lead, applied, warnings };
  });

  return router;
}
